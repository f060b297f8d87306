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
-1500 -3840
-500 -2080
-100 -608
0 0
100 1360
500 4480
1500 7680
