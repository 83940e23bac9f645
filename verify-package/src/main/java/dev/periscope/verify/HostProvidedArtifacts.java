package dev.periscope.verify;

import java.util.List;

/**
 * The artifacts a host provides to every plugin. A second copy inside a plugin's lib/ is loaded
 * plugin-first and breaks the plugin (ClassCastException, "no extensions found", "no injectable
 * constructor"), and a second copy of sqlite-jdbc cannot load its native library at all.
 */
final class HostProvidedArtifacts {
  record Artifact(String name, String jarPrefix, String packagePath) {}

  static final List<Artifact> ALL =
      List.of(
          new Artifact("plugin-api", "plugin-api", "dev/periscope/api/"),
          new Artifact("pf4j", "pf4j", "org/pf4j/"),
          new Artifact("slf4j-api", "slf4j-api", "org/slf4j/"),
          new Artifact("guice", "guice", "com/google/inject/"),
          new Artifact("jakarta.inject", "jakarta.inject", "jakarta/inject/"),
          new Artifact("aopalliance", "aopalliance", "org/aopalliance/"),
          new Artifact("sqlite-jdbc", "sqlite-jdbc", "org/sqlite/"));

  private HostProvidedArtifacts() {}
}
