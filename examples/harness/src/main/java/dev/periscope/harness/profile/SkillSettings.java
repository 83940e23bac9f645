package dev.periscope.harness.profile;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.periscope.harness.HarnessException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a skill is on: the project's {@code skills:} setting overrides the profile's, and a skill
 * nobody set is on. Settings are written to {@code profile.yaml} or to the project's {@code
 * .harness/project.yaml}.
 */
public final class SkillSettings {
  private SkillSettings() {}

  /**
   * Read from the files at each call, so a change made while a host runs applies to its next tool
   * call.
   */
  public static boolean enabled(HarnessHome.Profile profile, Path projectDir, String skill) {
    return setting(ProjectConfig.fileOf(projectDir), skill)
        .or(() -> profileSetting(profile, skill))
        .orElse(true);
  }

  public static Optional<Boolean> profileSetting(HarnessHome.Profile profile, String skill) {
    return setting(profile.settings(), skill);
  }

  private static Optional<Boolean> setting(Path file, String skill) {
    var node = Yaml.readObject(file).path("skills").path(skill);
    return node.isBoolean() ? Optional.of(node.asBoolean()) : Optional.empty();
  }

  /**
   * Writes {@code skills.<skill>} into a YAML file, keeping the rest of the file, comments
   * included, as the user wrote it. Only a {@code skills:} section in flow style is rewritten
   * through the YAML tree.
   */
  public static void set(Path file, String skill, boolean enabled) {
    String text;
    try {
      text = Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new HarnessException("cannot read " + file + ": " + e.getMessage(), e);
    }
    String edited = editInPlace(text, skill, enabled);
    try {
      if (edited != null
          && Yaml.MAPPER.readTree(edited).path("skills").path(skill).asBoolean(!enabled)
              == enabled) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, edited);
        return;
      }
    } catch (IOException e) {
      // the line edit did not give valid YAML: fall back to rewriting the tree
    }
    ObjectNode root = Yaml.readObject(file);
    ObjectNode skills =
        root.has("skills") && root.get("skills").isObject()
            ? (ObjectNode) root.get("skills")
            : root.putObject("skills");
    skills.put(skill, enabled);
    Yaml.write(file, root);
  }

  /**
   * The text with the setting changed or added in a block-style {@code skills:} section, or null.
   */
  static String editInPlace(String text, String skill, boolean enabled) {
    List<String> lines = new ArrayList<>(text.lines().toList());
    String value = skill + ": " + enabled;
    int section = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).matches("^skills:\\s*(#.*)?$")) {
        section = i;
        break;
      }
      if (lines.get(i).startsWith("skills:")) {
        return null;
      }
    }
    if (section < 0) {
      StringBuilder b = new StringBuilder(text);
      if (!text.isEmpty() && !text.endsWith("\n")) {
        b.append('\n');
      }
      return b.append("skills:\n  ").append(value).append('\n').toString();
    }
    String indent = "  ";
    Pattern entry =
        Pattern.compile("^(\\s+)" + Pattern.quote(skill) + ":\\s*(true|false)(\\s*#.*)?$");
    for (int i = section + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.isBlank() && !Character.isWhitespace(line.charAt(0)) && !line.startsWith("#")) {
        break;
      }
      Matcher m = entry.matcher(line);
      if (m.matches()) {
        lines.set(i, m.group(1) + value + (m.group(3) == null ? "" : m.group(3)));
        return String.join("\n", lines) + "\n";
      }
      Matcher child = Pattern.compile("^(\\s+)\\S").matcher(line);
      if (child.find() && !line.trim().startsWith("#")) {
        indent = child.group(1);
      }
    }
    lines.add(section + 1, indent + value);
    return String.join("\n", lines) + "\n";
  }
}
