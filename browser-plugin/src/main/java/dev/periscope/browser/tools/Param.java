package dev.periscope.browser.tools;

import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One argument of a tool: its name, whether it is required, and its JSON Schema. A tool's input
 * schema is built from its params ({@link #schema(List)}), never written by hand, and {@link
 * Arguments} reads a call's values by the same names.
 */
record Param(String name, boolean required, Map<String, Object> schema) {
  Param {
    schema = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(schema));
  }

  static Param string(String name, String description) {
    return new Param(name, false, describe(ordered("type", "string", "minLength", 1), description));
  }

  /** A string that may be empty, of at most {@code maxLength} characters. */
  static Param text(String name, int maxLength, String description) {
    return new Param(
        name, false, describe(ordered("type", "string", "maxLength", maxLength), description));
  }

  static Param pattern(String name, String regex, String description) {
    return new Param(
        name, false, describe(ordered("type", "string", "pattern", regex), description));
  }

  static Param oneOf(String name, List<String> values, String description) {
    // Typed as well: a converter that reads "type" first (LangChain4j's) makes a typeless enum an
    // empty object.
    return new Param(
        name, false, describe(ordered("type", "string", "enum", List.copyOf(values)), description));
  }

  static Param integer(String name, long min, long max, String description) {
    return new Param(
        name,
        false,
        describe(ordered("type", "integer", "minimum", min, "maximum", max), description));
  }

  /** A number greater than {@code exclusiveMin} and at most {@code max}. */
  static Param number(String name, double exclusiveMin, double max, String description) {
    return new Param(
        name,
        false,
        describe(
            ordered("type", "number", "exclusiveMinimum", exclusiveMin, "maximum", max),
            description));
  }

  /** A number from {@code min} to {@code max}, both included. */
  static Param between(String name, double min, double max, String description) {
    return new Param(
        name,
        false,
        describe(ordered("type", "number", "minimum", min, "maximum", max), description));
  }

  static Param bool(String name, String description) {
    return new Param(name, false, describe(ordered("type", "boolean"), description));
  }

  static Param strings(String name, int minItems, int maxItems, String description) {
    return new Param(
        name,
        false,
        describe(
            ordered(
                "type",
                "array",
                "items",
                ordered("type", "string"),
                "minItems",
                minItems,
                "maxItems",
                maxItems),
            description));
  }

  /** This param with one more schema keyword. */
  Param with(String keyword, Object value) {
    Map<String, Object> m = new LinkedHashMap<>(schema);
    m.put(keyword, value);
    return new Param(name, required, m);
  }

  /** This param, required. */
  Param asRequired() {
    return new Param(name, true, schema);
  }

  /** The same param under another name (a second ref, say). */
  Param renamed(String other) {
    return new Param(other, required, schema);
  }

  /** This param with another description. */
  Param described(String description) {
    return new Param(name, required, describe(schema, description));
  }

  /** A map of the keys and values in the order given. */
  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  private static Map<String, Object> describe(Map<String, Object> schema, String description) {
    Map<String, Object> m = new LinkedHashMap<>(schema);
    m.remove("description");
    if (description != null) {
      m.put("description", description);
    }
    return m;
  }

  /** The JSON Schema (2020-12) of an object with these params and no others, as JSON text. */
  static String schema(List<Param> params) {
    Map<String, Object> properties = new LinkedHashMap<>();
    List<String> required = new ArrayList<>();
    for (Param p : params) {
      if (properties.put(p.name(), p.schema()) != null) {
        throw new IllegalArgumentException("param " + p.name() + " is listed twice");
      }
      if (p.required()) {
        required.add(p.name());
      }
    }
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.put("type", "object");
    schema.put("properties", properties);
    schema.put("required", required);
    schema.put("additionalProperties", false);
    return new GsonBuilder().disableHtmlEscaping().create().toJson(schema);
  }
}
