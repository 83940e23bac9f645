package dev.periscope.browser.docs;

import static dev.periscope.browser.docs.Markdown.code;
import static dev.periscope.browser.docs.Markdown.codes;
import static dev.periscope.browser.docs.Markdown.number;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A JSON Schema node (a tool's parameter or a configuration setting, as parsed JSON or YAML) in
 * words: its type, and what values it takes. Only the keywords plugin.yaml and {@code Param} use
 * are read; a node with another keyword is refused, so that a reference never leaves a bound out.
 */
final class SchemaText {
  private static final List<String> KNOWN =
      List.of(
          "type",
          "description",
          "default",
          "enum",
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "minLength",
          "maxLength",
          "pattern",
          "items",
          "minItems",
          "maxItems",
          "properties",
          "additionalProperties",
          "propertyNames",
          "required");

  private SchemaText() {}

  /** Its type: {@code integer}, {@code array of string}, {@code map of string to string}, ... */
  static String type(Map<String, Object> node) {
    Object type = node.get("type");
    if ("array".equals(type)) {
      return node.get("items") instanceof Map<?, ?> items
          ? "array of " + type(map(items))
          : "array";
    }
    if ("object".equals(type) && node.get("additionalProperties") instanceof Map<?, ?> values) {
      return "map of string to " + type(map(values));
    }
    if (type != null) {
      return String.valueOf(type);
    }
    if (node.get("enum") instanceof List<?> values
        && values.stream().allMatch(v -> v instanceof String)) {
      return "string";
    }
    throw new IllegalArgumentException("a schema node without a type: " + node);
  }

  /** What values it takes beyond its type, or an empty string. */
  static String values(Map<String, Object> node) {
    for (String keyword : node.keySet()) {
      if (!KNOWN.contains(keyword)) {
        throw new IllegalArgumentException(
            "the docs do not know the schema keyword \"" + keyword + "\" (in " + node + ")");
      }
    }
    List<String> parts = new ArrayList<>();
    if (node.get("enum") instanceof List<?> values) {
      parts.add("one of " + codes(values));
    }
    Object min = node.get("minimum");
    Object exclusiveMin = node.get("exclusiveMinimum");
    Object max = node.get("maximum");
    if (min != null && max != null) {
      parts.add(number(min) + " to " + number(max));
    } else if (exclusiveMin != null) {
      parts.add(
          "more than " + number(exclusiveMin) + (max == null ? "" : ", at most " + number(max)));
    } else if (min != null) {
      parts.add("at least " + number(min));
    } else if (max != null) {
      parts.add("at most " + number(max));
    }
    parts.addAll(sizes(node.get("minLength"), node.get("maxLength"), "characters"));
    if (node.containsKey("pattern")) {
      parts.add("pattern " + code(node.get("pattern")));
    }
    parts.addAll(sizes(node.get("minItems"), node.get("maxItems"), "items"));
    if ("array".equals(node.get("type")) && node.get("items") instanceof Map<?, ?> items) {
      String each = values(map(items));
      if (!each.isEmpty()) {
        parts.add("each " + each);
      }
    }
    if (node.get("propertyNames") instanceof Map<?, ?> names) {
      parts.add("names " + values(map(names)));
    }
    if (node.get("additionalProperties") instanceof Map<?, ?> additional) {
      String each = values(map(additional));
      if (!each.isEmpty()) {
        parts.add("values " + each);
      }
    }
    return String.join("; ", parts);
  }

  private static List<String> sizes(Object min, Object max, String unit) {
    if (min != null && max != null) {
      return List.of(number(min) + " to " + number(max) + " " + unit);
    }
    if (min != null) {
      return List.of(
          "1".equals(number(min)) && unit.equals("characters")
              ? "not empty"
              : "at least " + number(min) + " " + unit);
    }
    if (max != null) {
      return List.of("at most " + number(max) + " " + unit);
    }
    return List.of();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object node) {
    return (Map<String, Object>) node;
  }
}
