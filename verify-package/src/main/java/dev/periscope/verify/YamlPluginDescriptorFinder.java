package dev.periscope.verify;

import java.nio.file.Files;
import java.nio.file.Path;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginDescriptorFinder;
import org.pf4j.PluginRuntimeException;

/**
 * Finds plugin.yaml at the root of a plugin directory. Placed first in the host's compound finder;
 * a malformed descriptor is refused with the file, the field and what was expected.
 */
public final class YamlPluginDescriptorFinder implements PluginDescriptorFinder {
  public static final String FILE_NAME = "plugin.yaml";

  @Override
  public boolean isApplicable(Path pluginPath) {
    return Files.isDirectory(pluginPath) && Files.isRegularFile(pluginPath.resolve(FILE_NAME));
  }

  @Override
  public PluginDescriptor find(Path pluginPath) {
    try {
      return new ManifestDescriptor(ManifestReader.read(pluginPath.resolve(FILE_NAME)));
    } catch (ManifestException e) {
      throw new PluginRuntimeException(e.getMessage());
    }
  }
}
