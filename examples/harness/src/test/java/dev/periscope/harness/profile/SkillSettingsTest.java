package dev.periscope.harness.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillSettingsTest {
  @TempDir Path dir;

  private String set(String before, String skill, boolean enabled) throws Exception {
    Path file = dir.resolve("project.yaml");
    Files.writeString(file, before);
    SkillSettings.set(file, skill, enabled);
    return Files.readString(file);
  }

  @Test
  void changesAnExistingSettingAndKeepsTheUsersComments() throws Exception {
    assertEquals(
        """
        # my project
        skills:
          browser: false # set by hand
          other: true
        plugins:
          browser: {network: {mode: strict}}  # keep me
        """,
        set(
            """
        # my project
        skills:
          browser: true # set by hand
          other: true
        plugins:
          browser: {network: {mode: strict}}  # keep me
        """,
            "browser",
            false));
  }

  @Test
  void addsTheSettingToAnExistingSectionOrAddsTheSection() throws Exception {
    assertEquals(
        "skills:\n    browser: true\n    other: false\n# end\n",
        set("skills:\n    other: false\n# end\n", "browser", true));
    assertEquals(
        "# only a comment\nskills:\n  browser: false\n", set("# only a comment", "browser", false));
  }

  @Test
  void rewritesAFlowStyleSectionThroughTheTree() throws Exception {
    String after = set("skills: {other: true}\n", "browser", false);
    assertEquals(false, Yaml.MAPPER.readTree(after).path("skills").path("browser").asBoolean(true));
    assertEquals(true, Yaml.MAPPER.readTree(after).path("skills").path("other").asBoolean(false));
  }
}
