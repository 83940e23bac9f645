package dev.periscope.harness.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;

/** JSON Schema (2020-12) validation that reports each violation with its instance path. */
public final class Schemas {
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  private Schemas() {}

  public static Schema compile(JsonNode schema) {
    return REGISTRY.getSchema(schema.toString());
  }

  public static Schema compile(String schemaJson) {
    return REGISTRY.getSchema(schemaJson);
  }

  /**
   * The violations of {@code instance}, each as {@code <prefix><path>: <message>}, where the path
   * is a JSON pointer such as {@code /network/mode}.
   */
  public static List<String> violations(Schema schema, JsonNode instance, String prefix) {
    List<Error> errors = schema.validate(instance);
    return errors.stream().map(e -> prefix + pointer(e) + ": " + message(e)).toList();
  }

  private static String pointer(Error e) {
    String location = e.getInstanceLocation().toString();
    // "$.network.mode" or "$.items[0]" → "/network/mode", "/items/0"
    String p = location.replaceFirst("^\\$", "").replaceAll("\\[(\\d+)]", ".$1").replace('.', '/');
    if ("additionalProperties".equals(e.getKeyword()) && e.getProperty() != null) {
      p = p + "/" + e.getProperty();
    }
    return p.isEmpty() ? "/" : p;
  }

  private static String message(Error e) {
    String m = e.getMessage();
    // networknt prefixes the message with the location; keep only what follows it.
    int colon = m.indexOf(": ");
    return colon >= 0 && m.startsWith("$") ? m.substring(colon + 2) : m;
  }
}
