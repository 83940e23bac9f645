package dev.periscope.examples.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The comparison itself, on schemas made here: it tells a changed kind from a kept one. */
class SchemaComparisonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode tools(String mode) throws Exception {
    return JSON.readTree(
        """
        [{"name": "t", "description": "A tool.", "inputSchema": {"type": "object",
          "properties": {
            "url": {"type": "string", "minLength": 1, "description": "Where."},
            "mode": %s,
            "count": {"type": "integer", "minimum": 1, "maximum": 9, "description": "How many."}},
          "required": ["url"], "additionalProperties": false}}]
        """
            .formatted(mode));
  }

  private static List<ToolSpecification> converted(JsonSchemaElement mode) {
    return List.of(
        ToolSpecification.builder()
            .name("t")
            .description("A tool.")
            .parameters(
                JsonObjectSchema.builder()
                    .addProperty("url", JsonStringSchema.builder().description("Where.").build())
                    .addProperty("mode", mode)
                    .addProperty(
                        "count", JsonIntegerSchema.builder().description("How many.").build())
                    .required("url")
                    .additionalProperties(false)
                    .build())
            .build());
  }

  @Test
  void aTypedEnumKeptAsAnEnumMatches() throws Exception {
    SchemaComparison c =
        SchemaComparison.of(
            tools("{\"type\": \"string\", \"enum\": [\"a\", \"b\"], \"description\": \"How.\"}"),
            converted(JsonEnumSchema.builder().enumValues("a", "b").description("How.").build()));
    assertEquals(List.of(), c.mismatches);
    assertEquals(4, c.compared);
    // LangChain4j 1.11.0 has no place for these bounds: listed, not mismatches.
    assertEquals(Map.of("maximum", 1, "minLength", 1, "minimum", 1), c.dropped);
  }

  @Test
  void anEnumWithoutTypeThatBecameAnEmptyObjectIsCaught() throws Exception {
    // What LangChain4j 1.11.0 makes of {"enum": [...]} without "type": an object schema.
    SchemaComparison c =
        SchemaComparison.of(
            tools("{\"enum\": [\"a\", \"b\"], \"description\": \"How.\"}"),
            converted(JsonObjectSchema.builder().description("How.").build()));
    assertEquals(1, c.mismatches.size(), c.mismatches.toString());
    assertTrue(c.mismatches.get(0).startsWith("t.mode: enum "), c.mismatches.get(0));
  }

  @Test
  void lostEnumValuesADescriptionOrAnotherKindAreCaught() throws Exception {
    SchemaComparison c =
        SchemaComparison.of(
            tools("{\"type\": \"string\", \"enum\": [\"a\", \"b\"], \"description\": \"How.\"}"),
            converted(JsonEnumSchema.builder().enumValues("a").build()));
    assertEquals(
        List.of("t.mode description: How. became null", "t.mode enum: [a, b] became [a]"),
        c.mismatches);
    SchemaComparison kind =
        SchemaComparison.of(
            tools("{\"type\": \"integer\", \"description\": \"How.\"}"),
            converted(JsonStringSchema.builder().description("How.").build()));
    assertEquals(1, kind.mismatches.size(), kind.mismatches.toString());
    assertTrue(kind.mismatches.get(0).startsWith("t.mode: integer "), kind.mismatches.get(0));
  }
}
