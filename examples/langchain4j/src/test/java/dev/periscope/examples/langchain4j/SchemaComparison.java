package dev.periscope.examples.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares the JSON Schemas a server sends in {@code tools/list} with what LangChain4j's MCP client
 * made of them ({@link ToolSpecification}s), property by property: the same kind (string, integer,
 * number, boolean, array, object, enum, anyOf), the same enum values, description, properties,
 * required list and array items, and each bound ({@code minimum}, {@code maxLength}, ...) wherever
 * LangChain4j's schema class has an accessor of that name. A bound it has no place for is not a
 * mismatch; it is listed in {@link #dropped}.
 */
final class SchemaComparison {
  private static final List<String> BOUNDS =
      List.of(
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "minLength",
          "maxLength",
          "pattern",
          "minItems",
          "maxItems",
          "uniqueItems");

  /** Where the two differ: a path and what each says. */
  final List<String> mismatches = new ArrayList<>();

  /** Bounds LangChain4j's schema classes have no accessor for, by keyword: how many were lost. */
  final Map<String, Integer> dropped = new TreeMap<>();

  /** How many schema elements (tool inputs, properties, items) were compared. */
  int compared;

  /** Compares every tool of {@code tools} (the {@code tools} array of a tools/list result). */
  static SchemaComparison of(JsonNode tools, List<ToolSpecification> specifications) {
    SchemaComparison c = new SchemaComparison();
    Set<String> seen = new HashSet<>();
    for (ToolSpecification spec : specifications) {
      seen.add(spec.name());
      JsonNode tool = null;
      for (JsonNode t : tools) {
        if (t.path("name").asText().equals(spec.name())) {
          tool = t;
        }
      }
      if (tool == null) {
        c.mismatches.add(spec.name() + ": LangChain4j has it, tools/list does not");
        continue;
      }
      c.same(
          spec.name() + " description", tool.path("description").asText(null), spec.description());
      c.element(spec.name(), tool.path("inputSchema"), spec.parameters());
    }
    for (JsonNode t : tools) {
      if (!seen.contains(t.path("name").asText())) {
        c.mismatches.add(t.path("name").asText() + ": tools/list has it, LangChain4j does not");
      }
    }
    return c;
  }

  /** What a JSON Schema is, as LangChain4j's kinds go. */
  static String kind(JsonNode schema) {
    if (schema.has("enum")) {
      return "enum";
    }
    if (schema.has("anyOf") || schema.path("type").isArray()) {
      return "anyOf";
    }
    if (schema.path("type").isTextual()) {
      return schema.path("type").asText();
    }
    return schema.has("properties") ? "object" : "untyped";
  }

  static String kind(JsonSchemaElement element) {
    if (element instanceof JsonEnumSchema) {
      return "enum";
    } else if (element instanceof JsonStringSchema) {
      return "string";
    } else if (element instanceof JsonIntegerSchema) {
      return "integer";
    } else if (element instanceof JsonNumberSchema) {
      return "number";
    } else if (element instanceof JsonBooleanSchema) {
      return "boolean";
    } else if (element instanceof JsonArraySchema) {
      return "array";
    } else if (element instanceof JsonObjectSchema) {
      return "object";
    } else if (element instanceof JsonAnyOfSchema) {
      return "anyOf";
    } else if (element instanceof JsonNullSchema) {
      return "null";
    }
    return element == null ? "absent" : element.getClass().getSimpleName();
  }

  void element(String path, JsonNode raw, JsonSchemaElement converted) {
    compared++;
    String rawKind = kind(raw);
    String convertedKind = kind(converted);
    if (!rawKind.equals(convertedKind)) {
      mismatches.add(
          path + ": " + rawKind + " " + raw + " became " + convertedKind + " " + converted);
      return;
    }
    if (!(converted instanceof JsonNullSchema)) {
      same(path + " description", raw.path("description").asText(null), converted.description());
    }
    bounds(path, raw, converted);
    if (converted instanceof JsonEnumSchema e) {
      List<String> values = new ArrayList<>();
      raw.path("enum").forEach(v -> values.add(v.asText()));
      same(path + " enum", values, e.enumValues());
      if (raw.has("type") && !raw.path("type").asText().equals("string")) {
        mismatches.add(path + ": an enum of type " + raw.path("type") + " became a string enum");
      }
    } else if (converted instanceof JsonObjectSchema o) {
      List<String> names = new ArrayList<>();
      raw.path("properties").fieldNames().forEachRemaining(names::add);
      same(path + " properties", names, new ArrayList<>(o.properties().keySet()));
      List<String> required = new ArrayList<>();
      raw.path("required").forEach(r -> required.add(r.asText()));
      same(path + " required", required, o.required() == null ? List.of() : o.required());
      if (raw.has("additionalProperties")) {
        same(
            path + " additionalProperties",
            raw.path("additionalProperties").asBoolean(true),
            o.additionalProperties());
      }
      for (String name : names) {
        if (o.properties().containsKey(name)) {
          element(path + "." + name, raw.path("properties").path(name), o.properties().get(name));
        }
      }
    } else if (converted instanceof JsonArraySchema a) {
      if (raw.path("items").isObject()) {
        element(path + "[]", raw.path("items"), a.items());
      }
    } else if (converted instanceof JsonAnyOfSchema any) {
      List<JsonNode> alternatives = new ArrayList<>();
      if (raw.has("anyOf")) {
        raw.path("anyOf").forEach(alternatives::add);
      } else { // "type": ["integer", "null"]
        raw.path("type")
            .forEach(
                t ->
                    alternatives.add(
                        JsonNodeFactory.instance.objectNode().put("type", t.asText())));
      }
      if (alternatives.size() != any.anyOf().size()) {
        mismatches.add(
            path + ": anyOf of " + alternatives.size() + " became " + any.anyOf().size());
      } else {
        for (int i = 0; i < alternatives.size(); i++) {
          element(path + "|" + i, alternatives.get(i), any.anyOf().get(i));
        }
      }
    }
  }

  private void bounds(String path, JsonNode raw, JsonSchemaElement converted) {
    for (String bound : BOUNDS) {
      if (!raw.has(bound)) {
        continue;
      }
      Method accessor;
      try {
        accessor = converted.getClass().getMethod(bound);
      } catch (NoSuchMethodException none) {
        dropped.merge(bound, 1, Integer::sum);
        continue;
      }
      Object value;
      try {
        value = accessor.invoke(converted);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
      JsonNode want = raw.path(bound);
      boolean equal =
          value != null
              && (want.isNumber()
                  ? value instanceof Number n && n.doubleValue() == want.asDouble()
                  : String.valueOf(value).equals(want.asText()));
      if (!equal) {
        mismatches.add(path + " " + bound + ": " + want + " became " + value);
      }
    }
  }

  private void same(String what, Object raw, Object converted) {
    if (!Objects.equals(raw, converted)) {
      mismatches.add(what + ": " + raw + " became " + converted);
    }
  }
}
