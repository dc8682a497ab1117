/* version.h - the one version of rpdtools.  Every tool prints it for
 * --version (rpd_cli_init) and augmenters record it in rocpd_metadata
 * ("rpdtools_version::PROG"). */
#ifndef RPD_VERSION_H
#define RPD_VERSION_H

#define RPDTOOLS_VERSION "0.15.0"

#endif
