"""The reference multibody vehicle (virtual MBM) on Exudyn: model, K&C rig, manoeuvres, export."""
