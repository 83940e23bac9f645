package dev.periscope.browser;

import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;

/** A numeric setting: its name in {@code plugins.browser}, its default and its bounds. */
public record SettingBound(String name, int defaultValue, int min, int max) {
  public int read(PluginConfiguration config) {
    Object raw = config.at(name).orElse(defaultValue);
    if (!(raw instanceof Number n)
        || n.doubleValue() != Math.rint(n.doubleValue())
        || n.longValue() < min
        || n.longValue() > max) {
      throw new ConfigurationException(
          "plugins.browser." + name,
          "plugins.browser."
              + name
              + " must be an integer from "
              + min
              + " to "
              + max
              + " (found "
              + raw
              + ")");
    }
    return n.intValue();
  }
}
