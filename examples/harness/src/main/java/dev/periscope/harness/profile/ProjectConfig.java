package dev.periscope.harness.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.credentials.ProjectCredentialService;
import dev.periscope.harness.HarnessException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A project's configuration, {@code DIR/.harness/project.yaml}: the host's sections ({@code
 * credentials}, {@code approval}, {@code skills}) checked against the host's schema, and each
 * plugin's section ({@code plugins.<id>}) checked against the schema that plugin declares. Invalid
 * input is refused with its path.
 */
public record ProjectConfig(
    Path projectDir,
    Map<String, ProjectCredentialService.Source> credentials,
    List<ApprovalRule> approvalRules,
    Map<String, JsonNode> pluginSections) {

  /** One approval rule; null fields match anything. */
  public record ApprovalRule(String tool, String credential, String origin, boolean allow) {}

  private static final Schema HOST_SCHEMA =
      Schemas.compile(
          """
      {"type": "object", "additionalProperties": false, "properties": {
        "credentials": {"type": "object", "additionalProperties": {
          "type": "object", "additionalProperties": false,
          "oneOf": [{"required": ["env"]}, {"required": ["store"]}],
          "properties": {"env": {"type": "string", "minLength": 1},
                         "store": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"},
                         "origins": {"type": "array", "items": {"type": "string", "minLength": 1}}}}},
        "approval": {"type": "object", "additionalProperties": false, "properties": {
          "rules": {"type": "array", "items": {"type": "object", "additionalProperties": false,
            "required": ["tool", "decision"],
            "properties": {"tool": {"type": "string", "minLength": 1}, "credential": {"type": "string"},
                           "origin": {"type": "string"}, "decision": {"enum": ["allow", "deny"]}}}}}},
        "skills": {"type": "object", "additionalProperties": {"type": "boolean"}},
        "plugins": {"type": "object", "additionalProperties": {"type": "object"}}}}
      """);

  public static Path fileOf(Path projectDir) {
    return projectDir.resolve(".harness").resolve("project.yaml");
  }

  /**
   * Loads and checks a project's configuration; {@code pluginSchemas} maps plugin id to its config
   * schema.
   */
  public static ProjectConfig load(Path dir, Map<String, JsonNode> pluginSchemas) {
    Path projectDir = canonical(dir);
    Path file = fileOf(projectDir);
    ObjectNode root = Yaml.readObject(file);
    List<String> problems = new ArrayList<>(Schemas.violations(HOST_SCHEMA, root, ""));
    JsonNode plugins = root.path("plugins");
    Map<String, JsonNode> sections = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> schema : pluginSchemas.entrySet()) {
      JsonNode section = plugins.path(schema.getKey());
      if (section.isMissingNode()) {
        section = Yaml.MAPPER.createObjectNode();
      }
      if (section.isObject()) {
        // Each plugin's section is checked against the schema the plugin declares, not keys known
        // to the host.
        problems.addAll(
            Schemas.violations(
                Schemas.compile(schema.getValue()), section, "/plugins/" + schema.getKey()));
        sections.put(schema.getKey(), section);
      }
    }
    if (!problems.isEmpty()) {
      throw new HarnessException(file + " is invalid:\n - " + String.join("\n - ", problems));
    }
    Map<String, ProjectCredentialService.Source> credentials = new LinkedHashMap<>();
    root.path("credentials")
        .fields()
        .forEachRemaining(
            e -> {
              List<OriginPattern> origins = new ArrayList<>();
              JsonNode listed = e.getValue().path("origins");
              for (int i = 0; i < listed.size(); i++) {
                try {
                  origins.add(OriginPattern.parse(listed.get(i).asText()));
                } catch (IllegalArgumentException bad) {
                  problems.add(
                      "/credentials/" + e.getKey() + "/origins/" + i + ": " + bad.getMessage());
                }
              }
              JsonNode env = e.getValue().path("env");
              credentials.put(
                  e.getKey(),
                  env.isTextual()
                      ? ProjectCredentialService.Source.environment(env.asText(), origins)
                      : ProjectCredentialService.Source.store(
                          e.getValue().path("store").asText(), origins));
            });
    if (!problems.isEmpty()) {
      throw new HarnessException(file + " is invalid:\n - " + String.join("\n - ", problems));
    }
    List<ApprovalRule> rules = new ArrayList<>();
    JsonNode listedRules = root.path("approval").path("rules");
    for (int i = 0; i < listedRules.size(); i++) {
      JsonNode r = listedRules.get(i);
      String origin = text(r, "origin");
      if (origin != null) {
        try {
          OriginPattern.parse(origin);
        } catch (IllegalArgumentException bad) {
          problems.add("/approval/rules/" + i + "/origin: " + bad.getMessage());
        }
      }
      rules.add(
          new ApprovalRule(
              text(r, "tool"),
              text(r, "credential"),
              origin,
              "allow".equals(r.path("decision").asText())));
    }
    if (!problems.isEmpty()) {
      throw new HarnessException(file + " is invalid:\n - " + String.join("\n - ", problems));
    }
    return new ProjectConfig(projectDir, credentials, rules, sections);
  }

  public static Path canonical(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new HarnessException("project directory " + dir + " does not exist");
    }
    try {
      return dir.toRealPath();
    } catch (IOException e) {
      throw new HarnessException(
          "cannot resolve project directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
