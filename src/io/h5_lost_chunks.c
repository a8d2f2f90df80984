/* Chunks of a series that its index lists but HDF5 cannot find (a chunk
 * index node torn by a kill), read from the addresses the index lists. */
#define _XOPEN_SOURCE 700 /* pread */
#include "io/h5_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Why this is needed. A flush that adds a chunk to a series rewrites the
 * series' chunk index, a v1 B-tree node of 2,096 bytes, as part of one
 * write of the metadata that may span several pages of the file. Linux
 * copies a write into the page cache a page at a time, and a SIGKILL stops
 * it between two pages; where the node crosses that page boundary, the
 * part past it keeps its old bytes. When those bytes hold the node's last
 * key, HDF5's search of the node (by key) misses chunks that its walk
 * over the node's children (by count) still lists with their addresses:
 * their rows read as fill values, though their data is in the file
 * (measured: tests/cli_h5_tear.sh; a kill at the 6th page of a 27 kB
 * write). */

#if H5_VERSION_GE(1, 10, 5)
/* The file's descriptor (the sec2 driver, every dem reader and writer's),
 * the end of its allocated space and its user block's size. */
static int file_handle(hid_t ds, int *fd, haddr_t *eoa, hsize_t *base) {
  hid_t file = H5Iget_file_id(ds), fapl = -1, fcpl = -1;
  void *handle = NULL;
  int ok = file >= 0 && (fapl = H5Fget_access_plist(file)) >= 0 &&
           H5Pget_driver(fapl) == H5FD_SEC2 &&
           H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle &&
           H5Fget_eoa(file, eoa) >= 0 &&
           (fcpl = H5Fget_create_plist(file)) >= 0 &&
           H5Pget_userblock(fcpl, base) >= 0;
  if (ok)
    *fd = *(int *)handle;
  if (fcpl >= 0)
    H5Pclose(fcpl);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (file >= 0)
    H5Fclose(file);
  return ok;
}

/* Whether a chunk's first element in buf (elem bytes) is the fill value. */
static int reads_as_fill(const unsigned char *first, const unsigned char *fill,
                         size_t elem) {
  return memcmp(first, fill, elem) == 0;
}

long dem_h5u_read_lost_chunks(hid_t ds, hid_t mem_type, hsize_t n, void *buf) {
  hsize_t dims[2] = {0, 1}, chunk[2] = {0, 1}, base = 0;
  hid_t dcpl = H5Dget_create_plist(ds), space = H5Dget_space(ds);
  hid_t file_type = H5Dget_type(ds);
  size_t elem = H5Tget_size(mem_type), row_bytes, chunk_bytes;
  unsigned char fill[16], *data = NULL;
  long lost = 0, rank;
  haddr_t eoa = 0;
  int fd = -1, need = 0;

  rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  if (dcpl < 0 || file_type < 0 || rank < 1 || rank > 2 || elem == 0 ||
      elem > sizeof fill || H5Tget_size(file_type) != elem ||
      H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
    lost = -1;
    goto done;
  }
  if (n == 0 || H5Pget_layout(dcpl) != H5D_CHUNKED ||
      H5Pget_chunk(dcpl, (int)rank, chunk) != rank || chunk[0] == 0 ||
      (rank == 2 && chunk[1] != dims[1]) ||
      H5Pget_fill_value(dcpl, mem_type, fill) < 0)
    goto done; /* nothing this repairs */
  row_bytes = elem * (size_t)dims[1];
  chunk_bytes = row_bytes * (size_t)chunk[0];
  for (hsize_t r = 0; r < n && !need; r += chunk[0])
    need = reads_as_fill((unsigned char *)buf + r * row_bytes, fill, elem);
  if (!need || !file_handle(ds, &fd, &eoa, &base))
    goto done;
  data = malloc(chunk_bytes);
  if (!data) {
    lost = -1;
    goto done;
  }
  for (hsize_t r0 = 0; r0 < n; r0 += chunk[0]) {
    hsize_t offset[2] = {r0, 0}, size = 0;
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    /* A chunk whose first row reads as fill that the index lists (HDF5
     * finds it by walking the index, not by its keys), unfiltered, whole
     * and inside the allocated space: a chunk past it belongs to the
     * append the kill cut, whose rows are dropped. */
    if (!reads_as_fill((unsigned char *)buf + r0 * row_bytes, fill, elem) ||
        H5Dget_chunk_info_by_coord(ds, offset, &mask, &addr, &size) < 0 ||
        addr == HADDR_UNDEF || mask != 0 || size != chunk_bytes ||
        addr + size > eoa)
      continue;
    if (pread(fd, data, chunk_bytes, (off_t)(addr + base)) !=
            (ssize_t)chunk_bytes ||
        H5Tconvert(file_type, mem_type, chunk_bytes / elem, data, NULL,
                   H5P_DEFAULT) < 0) {
      lost = -1;
      goto done;
    }
    hsize_t rows = n - r0 < chunk[0] ? n - r0 : chunk[0];
    memcpy((unsigned char *)buf + r0 * row_bytes, data, rows * row_bytes);
    lost++;
  }
done:
  free(data);
  if (file_type >= 0)
    H5Tclose(file_type);
  if (space >= 0)
    H5Sclose(space);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  return lost;
}
#else
long dem_h5u_read_lost_chunks(hid_t ds, hid_t mem_type, hsize_t n, void *buf) {
  (void)ds, (void)mem_type, (void)n, (void)buf;
  return 0; /* HDF5 before 1.10.5 cannot list a dataset's chunks */
}
#endif
