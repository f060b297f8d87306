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
-1500 -2400
-500 -1300
-100 -380
0 0
100 850
500 2800
1500 4800
