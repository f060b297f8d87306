$---------------------------------------------------------------------MDI_HEADER
[MDI_HEADER]
FILE_TYPE = 'dpr'
FILE_VERSION = 4.0
FILE_FORMAT = 'ASCII'
(COMMENTS)
{comment_string}
'damper written by pybridge.mbm.property_files'
$--------------------------------------------------------------------------UNITS
[UNITS]
LENGTH = 'mm'
ANGLE = 'degrees'
FORCE = 'newton'
MASS = 'kg'
TIME = 'second'
$--------------------------------------------------------------------------CURVE
[CURVE]
{ vel force }
-1500 -1260
-500 -660
-100 -198
0 0
100 450
500 1440
1500 2460
