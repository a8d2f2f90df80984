/* Internal: hidden temporary files beside an output, created exclusively. */
#ifndef DEM_TEMP_FILE_H
#define DEM_TEMP_FILE_H

#include <stddef.h>

/* How many characters a temporary name adds to the name it stands for
 * (".NAME.XXXXXX"): an output name must leave room for them. */
enum { DEM_TEMP_EXTRA = 8 };

/* Creates a new empty file "DIR/.NAME.XXXXXX" beside `path` (XXXXXX
 * random), with O_CREAT | O_EXCL so that nothing planted there (a file, a
 * symbolic link) is followed or reused, mode 0666 less the umask like any
 * output. Returns its descriptor and sets *tmp (caller frees), or returns
 * -1 with errno set (*tmp NULL). */
int dem_temp_create(const char *path, char **tmp);

#endif
