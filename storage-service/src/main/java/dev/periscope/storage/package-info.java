/**
 * The reference storage-domain service: one SQLite file per domain, opened with an integrity check,
 * migrated in version order (the version in {@code user_version}), one transaction at a time per
 * domain; a damaged file or a newer schema is refused and left as it was.
 */
package dev.periscope.storage;
