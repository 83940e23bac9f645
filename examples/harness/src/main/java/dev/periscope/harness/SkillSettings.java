package dev.periscope.harness;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a skill is on: the project's {@code skills:} setting overrides the profile's, and a skill nobody set
 * is on. Settings are written to {@code profile.yaml} or to the project's {@code .harness/project.yaml}.
 */
final class SkillSettings {
  private SkillSettings() {}

  static boolean enabled(HarnessHome.Profile profile, ProjectConfig project, String skill) {
    return project.skill(skill).or(() -> profileSetting(profile, skill)).orElse(true);
  }

  static Optional<Boolean> profileSetting(HarnessHome.Profile profile, String skill) {
    var node = Yaml.readObject(profile.settings()).path("skills").path(skill);
    return node.isBoolean() ? Optional.of(node.asBoolean()) : Optional.empty();
  }

  static void set(Path file, String skill, boolean enabled) {
    ObjectNode root = Yaml.readObject(file);
    ObjectNode skills = root.has("skills") && root.get("skills").isObject()
        ? (ObjectNode) root.get("skills") : root.putObject("skills");
    skills.put(skill, enabled);
    Yaml.write(file, root);
  }
}
