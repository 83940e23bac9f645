package dev.periscope.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The plugin's section of the project configuration ({@code plugins.<id>} in the project's YAML),
 * already validated by the host against the {@code config} JSON Schema the plugin declares in
 * plugin.yaml. Values are JSON-shaped: maps, lists, strings, numbers, booleans.
 */
public record PluginConfiguration(Map<String, Object> values) {
  public PluginConfiguration {
    values = values == null ? Map.of() : Map.copyOf(values);
  }

  public static PluginConfiguration empty() {
    return new PluginConfiguration(Map.of());
  }

  /** The value at a dotted path such as {@code network.mode}, if present. */
  public Optional<Object> at(String dottedPath) {
    Object current = values;
    for (String part : dottedPath.split("\\.")) {
      if (!(current instanceof Map<?, ?> map) || !map.containsKey(part)) {
        return Optional.empty();
      }
      current = map.get(part);
    }
    return Optional.ofNullable(current);
  }

  public Optional<String> string(String dottedPath) {
    return at(dottedPath).map(String::valueOf);
  }

  @SuppressWarnings("unchecked")
  public List<String> strings(String dottedPath) {
    return at(dottedPath)
        .map(v -> ((List<Object>) v).stream().map(String::valueOf).toList())
        .orElse(List.of());
  }
}
