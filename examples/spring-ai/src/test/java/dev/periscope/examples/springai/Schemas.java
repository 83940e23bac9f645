package dev.periscope.examples.springai;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What changed between a tool's input JSON Schema as the server sends it and as Spring AI hands it
 * to a model: every key of the schema and of each property (its type, enum values, bounds, pattern,
 * description, items), compared as JSON values (1 and 1.0 are the same number).
 */
final class Schemas {
  private Schemas() {}

  static List<String> differences(String tool, JsonNode sent, JsonNode given) {
    List<String> out = new ArrayList<>();
    for (String key : keys(sent, given)) {
      if (key.equals("properties")) {
        continue;
      }
      if (!same(sent.get(key), given.get(key))) {
        out.add(tool + ": " + key + " " + sent.get(key) + " became " + given.get(key));
      }
    }
    JsonNode sentProperties = sent.path("properties");
    JsonNode givenProperties = given.path("properties");
    for (String name : keys(sentProperties, givenProperties)) {
      property(tool + "." + name, sentProperties.get(name), givenProperties.get(name), out);
    }
    return out;
  }

  private static void property(String path, JsonNode sent, JsonNode given, List<String> out) {
    if (sent == null || given == null) {
      out.add(path + (sent == null ? ": added " + given : ": lost"));
      return;
    }
    if (sent.has("type") && !given.has("type")) {
      out.add(path + ": lost its type " + sent.get("type"));
    }
    for (String key : keys(sent, given)) {
      if (key.equals("items") && sent.has(key) && given.has(key)) {
        property(path + "[]", sent.get(key), given.get(key), out);
      } else if (key.equals("properties") && sent.has(key) && given.has(key)) {
        for (String name : keys(sent.get(key), given.get(key))) {
          property(path + "." + name, sent.get(key).get(name), given.get(key).get(name), out);
        }
      } else if (!same(sent.get(key), given.get(key))) {
        out.add(path + ": " + key + " " + sent.get(key) + " became " + given.get(key));
      }
    }
  }

  private static Set<String> keys(JsonNode a, JsonNode b) {
    Set<String> keys = new LinkedHashSet<>();
    if (a != null && a.isObject()) {
      keys.addAll(a.propertyNames());
    }
    if (b != null && b.isObject()) {
      keys.addAll(b.propertyNames());
    }
    return keys;
  }

  static boolean same(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.isNumber() && b.isNumber()) {
      return compare(a.decimalValue(), b.decimalValue());
    }
    if (a.isArray() && b.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!same(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a.isObject() && b.isObject()) {
      for (String key : keys(a, b)) {
        if (!same(a.get(key), b.get(key))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static boolean compare(BigDecimal a, BigDecimal b) {
    return a.compareTo(b) == 0;
  }
}
