package dev.periscope.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.periscope.api.tool.SkillDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads plugin.yaml. Every problem is reported as a {@link ManifestException} naming the file, the
 * field and what was expected; a descriptor is either wholly valid or refused.
 */
public final class ManifestReader {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern ID = Pattern.compile("^[a-z][a-z0-9-]{0,63}$");
  private static final Pattern SEMVER = Pattern.compile("^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$");
  private static final Pattern JAVA_CLASS =
      Pattern.compile("^([a-zA-Z_$][\\w$]*\\.)+[A-Z][\\w$]*$");
  private static final Pattern DEPENDENCY = Pattern.compile("^[a-z][a-z0-9-]{0,63}(@\\S.*)?$");
  private static final Pattern TOOL = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");

  private ManifestReader() {}

  public static PluginManifest read(Path file) throws ManifestException {
    String name = file.toString();
    try {
      return parse(name, Files.readAllBytes(file));
    } catch (IOException e) {
      throw new ManifestException(name, "(file)", "a readable YAML file (" + e.getMessage() + ")");
    }
  }

  public static PluginManifest parse(String fileName, byte[] yaml) throws ManifestException {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
      throw new ManifestException(
          fileName, "(document)", "valid YAML" + where + ": " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new ManifestException(
          fileName, "(document)", "valid YAML: " + firstLine(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new ManifestException(fileName, "(document)", "a YAML mapping of descriptor fields");
    }
    String id = text(fileName, root, "id", ID, "a plugin id matching " + ID);
    String version = text(fileName, root, "version", SEMVER, "a semantic version such as 1.2.3");
    String description = text(fileName, root, "description", null, "a non-empty string");
    String provider = text(fileName, root, "provider", null, "a non-empty string");
    String license = text(fileName, root, "license", null, "a non-empty string");
    String requires =
        text(
            fileName,
            root,
            "requires",
            null,
            "a host API version range such as '>=2.0.0 & <3.0.0'");
    String pluginClass =
        text(fileName, root, "pluginClass", JAVA_CLASS, "a fully qualified Java class name");
    String module =
        text(fileName, root, "module", JAVA_CLASS, "a fully qualified Guice module class name");
    JsonNode inject = root.get("inject");
    if (inject == null || !inject.isObject()) {
      throw new ManifestException(
          fileName, "inject", "a mapping with 'required' and 'optional' lists of service names");
    }
    List<String> required = names(fileName, inject, "inject.required", "required");
    List<String> optional = names(fileName, inject, "inject.optional", "optional");
    List<String> dependencies = names(fileName, root, "dependencies", "dependencies");
    for (int i = 0; i < dependencies.size(); i++) {
      if (!DEPENDENCY.matcher(dependencies.get(i)).matches()) {
        throw new ManifestException(
            fileName,
            "dependencies[" + i + "]",
            "a plugin id, optionally with a version range: browser or browser@>=0.1.0");
      }
    }
    JsonNode skillsNode = root.get("skills");
    if (skillsNode == null || !skillsNode.isArray()) {
      throw new ManifestException(
          fileName, "skills", "a list of skills, each with name, tools and guidance");
    }
    List<SkillDeclaration> skills = new ArrayList<>();
    for (int i = 0; i < skillsNode.size(); i++) {
      JsonNode s = skillsNode.get(i);
      String at = "skills[" + i + "]";
      if (!s.isObject()) {
        throw new ManifestException(fileName, at, "a mapping with name, tools and guidance");
      }
      String skillName = text(fileName, s, "name", ID, "a skill name matching " + ID, at + ".");
      String guidance = text(fileName, s, "guidance", null, "a non-empty string", at + ".");
      List<String> tools = names(fileName, s, at + ".tools", "tools");
      for (int t = 0; t < tools.size(); t++) {
        if (!TOOL.matcher(tools.get(t)).matches()) {
          throw new ManifestException(
              fileName, at + ".tools[" + t + "]", "a tool name matching " + TOOL);
        }
      }
      SkillDeclaration.Audience audience = SkillDeclaration.Audience.AGENT;
      JsonNode audienceNode = s.get("audience");
      if (audienceNode != null) {
        try {
          audience =
              SkillDeclaration.Audience.of(audienceNode.isTextual() ? audienceNode.asText() : "");
        } catch (IllegalArgumentException e) {
          throw new ManifestException(fileName, at + ".audience", "agent or operator");
        }
      }
      skills.add(new SkillDeclaration(skillName, tools, guidance, audience));
    }
    JsonNode config = root.get("config");
    if (config == null || !config.isObject()) {
      throw new ManifestException(
          fileName, "config", "the JSON Schema (a mapping) of the plugin's project configuration");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> schema = YAML.convertValue(config, Map.class);
    return new PluginManifest(
        id,
        version,
        description,
        provider,
        license,
        requires,
        pluginClass,
        module,
        required,
        optional,
        dependencies,
        List.copyOf(skills),
        schema);
  }

  private static String text(
      String file, JsonNode node, String field, Pattern pattern, String expected)
      throws ManifestException {
    return text(file, node, field, pattern, expected, "");
  }

  private static String text(
      String file, JsonNode node, String field, Pattern pattern, String expected, String prefix)
      throws ManifestException {
    JsonNode value = node.get(field);
    if (value == null || !value.isValueNode() || value.isNull() || value.asText().isBlank()) {
      throw new ManifestException(file, prefix + field, expected);
    }
    String s = value.asText().trim();
    if (pattern != null && !pattern.matcher(s).matches()) {
      throw new ManifestException(file, prefix + field, expected + " (found '" + s + "')");
    }
    return s;
  }

  private static List<String> names(String file, JsonNode parent, String path, String field)
      throws ManifestException {
    JsonNode list = parent.get(field);
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new ManifestException(file, path, "a list of names");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode n = list.get(i);
      if (!n.isTextual() || n.asText().isBlank()) {
        throw new ManifestException(file, path + "[" + i + "]", "a non-empty name");
      }
      out.add(n.asText());
    }
    return List.copyOf(out);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
