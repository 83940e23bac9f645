package dev.periscope.harness.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.periscope.harness.HarnessException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes the harness's YAML files as JSON trees. */
public final class Yaml {
  static final ObjectMapper MAPPER =
      new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
  public static final ObjectMapper JSON = new ObjectMapper();

  private Yaml() {}

  /** The file's tree; an empty object when the file does not exist or is empty. */
  public static ObjectNode readObject(Path file) {
    if (!Files.exists(file)) {
      return MAPPER.createObjectNode();
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(file.toFile());
    } catch (IOException e) {
      throw new HarnessException(file + ": not valid YAML: " + firstLine(e.getMessage()));
    }
    if (node == null || node.isMissingNode() || node.isNull()) {
      return MAPPER.createObjectNode();
    }
    if (!node.isObject()) {
      throw new HarnessException(file + ": expected a YAML mapping at the top level");
    }
    return (ObjectNode) node;
  }

  static void write(Path file, JsonNode node) {
    try {
      Files.createDirectories(file.getParent());
      MAPPER.writeValue(file.toFile(), node);
    } catch (IOException e) {
      throw new HarnessException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
