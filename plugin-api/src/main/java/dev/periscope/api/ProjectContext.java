package dev.periscope.api;

import java.nio.file.Path;

/**
 * Where the plugin runs: the host profile and the project. {@code projectDir} is the project's canonical real
 * path, so two spellings of one directory are one project.
 */
public record ProjectContext(String profile, Path projectDir) {}
