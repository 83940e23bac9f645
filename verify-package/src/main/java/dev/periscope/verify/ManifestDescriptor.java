package dev.periscope.verify;

import org.pf4j.DefaultPluginDescriptor;

/** A PF4J descriptor made from plugin.yaml that keeps the whole manifest for the host to read. */
public final class ManifestDescriptor extends DefaultPluginDescriptor {
  private final PluginManifest manifest;

  public ManifestDescriptor(PluginManifest manifest) {
    super(
        manifest.id(),
        manifest.description(),
        manifest.pluginClass(),
        manifest.version(),
        manifest.requires(),
        manifest.provider(),
        manifest.license());
    this.manifest = manifest;
    if (!manifest.dependencies().isEmpty()) {
      setDependencies(manifest.dependencies().toArray(String[]::new));
    }
  }

  public PluginManifest manifest() {
    return manifest;
  }
}
