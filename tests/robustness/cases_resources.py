"""Resources (issue 37): what compiles leave behind (precompiled headers of short scripts), and compiles and cache
entries when the disk, the inodes or the cache directory fail them. Nothing may leak, and a cache that cannot be
used costs speed, never a result."""
from cases import with_category

CASES = []

CASES = with_category("resources", CASES)
