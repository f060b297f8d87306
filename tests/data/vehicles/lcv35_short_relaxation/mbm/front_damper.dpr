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
-1500 -2100
-500 -1100
-100 -330
0 0
100 750
500 2400
1500 4100
