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

  /** Read from the files at each call, so a change made while a host runs applies to its next tool call. */
  static boolean enabled(HarnessHome.Profile profile, Path projectDir, String skill) {
    return setting(ProjectConfig.fileOf(projectDir), skill).or(() -> profileSetting(profile, skill)).orElse(true);
  }

  static Optional<Boolean> profileSetting(HarnessHome.Profile profile, String skill) {
    return setting(profile.settings(), skill);
  }

  private static Optional<Boolean> setting(Path file, String skill) {
    var node = Yaml.readObject(file).path("skills").path(skill);
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
