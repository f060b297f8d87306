$---------------------------------------------------------------------MDI_HEADER
[MDI_HEADER]
FILE_TYPE = 'reb'
FILE_VERSION = 4.0
FILE_FORMAT = 'ASCII'
(COMMENTS)
{comment_string}
'reboundstop written by pybridge.mbm.property_files'
$--------------------------------------------------------------------------UNITS
[UNITS]
LENGTH = 'mm'
ANGLE = 'degrees'
FORCE = 'newton'
MASS = 'kg'
TIME = 'second'
$---------------------------------------------------------------REBOUNDSTOP_DATA
[REBOUNDSTOP_DATA]
CLEARANCE = 90
$--------------------------------------------------------------------------CURVE
[CURVE]
{ disp force }
0 0
4 4500
8 13500
12 32000
