/* Named schemes compiled into the binary from configs/schemes (YAML files). */
#ifndef DEM_SCHEMES_DATA_H
#define DEM_SCHEMES_DATA_H

struct dem_embedded_scheme {
  const char *name; /* file name without .yaml */
  const char *path; /* for messages: configs/schemes/NAME.yaml */
  const char *text; /* the YAML */
};

/* Terminated by an entry with name NULL. */
extern const struct dem_embedded_scheme dem_embedded_schemes[];

#endif
