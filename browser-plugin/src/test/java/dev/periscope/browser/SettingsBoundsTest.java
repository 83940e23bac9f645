package dev.periscope.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.browser.playwright.GridSettings;
import dev.periscope.verify.ManifestReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Each numeric setting's bounds and default are written twice: in plugin.yaml's schema, which the
 * host checks a project against (and the configuration reference shows), and in the {@link
 * SettingBound} the plugin reads it with. This pins them together: every integer setting of the
 * schema has a SettingBound with its minimum, maximum and default, and every SettingBound a
 * setting.
 */
class SettingsBoundsTest {
  /** Every SettingBound the plugin reads settings with, by its name under plugins.browser. */
  static Map<String, SettingBound> bounds() throws IllegalAccessException {
    Map<String, SettingBound> all = new TreeMap<>();
    for (Class<?> c : List.of(BrowserSettings.class, GridSettings.class)) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.getType() == SettingBound.class) {
          SettingBound b = (SettingBound) f.get(null);
          all.put(b.name(), b);
        }
      }
    }
    return all;
  }

  /** The schema's properties of {@code type}, by dotted path, each with its schema. */
  @SuppressWarnings("unchecked")
  static void properties(
      String prefix,
      Map<String, Object> object,
      String type,
      Map<String, Map<String, Object>> out) {
    Map<String, Object> properties =
        (Map<String, Object>) object.getOrDefault("properties", Map.of());
    properties.forEach(
        (name, value) -> {
          Map<String, Object> schema = (Map<String, Object>) value;
          String path = prefix + name;
          if (type.equals(schema.get("type"))) {
            out.put(path, schema);
          }
          properties(path + ".", schema, type, out);
        });
  }

  static Map<String, Map<String, Object>> schema(String type) throws Exception {
    Map<String, Map<String, Object>> found = new TreeMap<>();
    properties("", ManifestReader.read(Path.of("..", "plugin.yaml")).configSchema(), type, found);
    return found;
  }

  @Test
  void everyIntegerSettingOfTheSchemaIsReadWithItsOwnBoundsAndDefault() throws Exception {
    Map<String, SettingBound> bounds = bounds();
    Map<String, Map<String, Object>> integers = schema("integer");
    List<String> differ = new ArrayList<>();
    integers.forEach(
        (path, s) -> {
          SettingBound b = bounds.get(path);
          if (b == null) {
            differ.add(path + ": no SettingBound reads it");
            return;
          }
          if (((Number) s.get("minimum")).longValue() != b.min()
              || ((Number) s.get("maximum")).longValue() != b.max()) {
            differ.add(
                path
                    + ": schema "
                    + s.get("minimum")
                    + ".."
                    + s.get("maximum")
                    + ", SettingBound "
                    + b.min()
                    + ".."
                    + b.max());
          }
          // pool.browsers has no default in the schema: one per core, which only the plugin knows.
          Object d = s.get("default");
          if (d == null
              ? !path.equals("pool.browsers")
              : ((Number) d).longValue() != b.defaultValue()) {
            differ.add(path + ": schema default " + d + ", SettingBound " + b.defaultValue());
          }
        });
    bounds.keySet().stream()
        .filter(name -> !integers.containsKey(name))
        .forEach(
            name -> differ.add(name + ": a SettingBound for no integer setting of the schema"));
    assertEquals(List.of(), differ);
    assertTrue(integers.size() >= 25, integers.keySet().toString());
  }

  @Test
  void theDeviceScaleFactorIsReadWithTheSchemasBoundsAndDefault() throws Exception {
    Map<String, Object> s = schema("number").get("viewport.deviceScaleFactor");
    assertEquals(
        BrowserSettings.MIN_DEVICE_SCALE_FACTOR, ((Number) s.get("minimum")).doubleValue());
    assertEquals(
        BrowserSettings.MAX_DEVICE_SCALE_FACTOR, ((Number) s.get("maximum")).doubleValue());
    assertEquals(BrowserSettings.DEVICE_SCALE_FACTOR, ((Number) s.get("default")).doubleValue());
  }
}
