/**
 * A harness home and its profiles: installed plugin packages (verified, checked against the host
 * API), skill settings per profile and project, a project's configuration checked against the
 * host's and each plugin's JSON Schema, and the YAML and JSON Schema helpers they share. Nothing
 * here starts a plugin.
 */
package dev.periscope.harness.profile;
