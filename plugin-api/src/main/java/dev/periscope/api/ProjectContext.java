package dev.periscope.api;

import java.nio.file.Path;

/**
 * Where the plugin runs: the host profile and the project. {@code projectDir} is the project's
 * canonical real path, so two spellings of one directory are one project. {@code dataDir} is the
 * plugin's private directory in the profile (owner-only), for state that is not a database row,
 * such as checkpoint payloads.
 */
public record ProjectContext(String profile, Path projectDir, Path dataDir) {}
