package dev.periscope.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.SkillDeclaration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ManifestReaderTest {
  private static PluginManifest parse(String yaml) throws ManifestException {
    return ManifestReader.parse("plugin.yaml", yaml.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsTheRepositoryDescriptor() throws Exception {
    PluginManifest m = ManifestReader.read(Path.of("..", "plugin.yaml"));
    assertEquals("browser", m.id());
    assertEquals("dev.periscope.browser.BrowserPlugin", m.pluginClass());
    assertEquals(java.util.List.of("storageDomain"), m.requiredServices());
    assertEquals("browser", m.skills().get(0).name());
    assertEquals(SkillDeclaration.Audience.AGENT, m.skills().get(0).audience());
    assertEquals("browser-scripting", m.skills().get(1).name());
    assertEquals(SkillDeclaration.Audience.AGENT, m.skills().get(1).audience());
    assertEquals("browser-operator", m.skills().get(2).name());
    assertEquals(SkillDeclaration.Audience.OPERATOR, m.skills().get(2).audience());
    assertEquals("object", m.configSchema().get("type"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "id: sample|id: Sample Plugin|id",
        "pluginClass: sample.SamplePlugin|pluginClass: not a class|pluginClass",
        "module: sample.SampleModule|module: ''|module",
        "tools: [sample_tool]|tools: [Sample-Tool]|skills[0].tools[0]",
        "requires: \">=2.0.0 & <3.0.0\"|requires: []|requires",
        "config:|configuration:|config",
      })
  void refusesABadFieldNamingTheFileTheFieldAndWhatWasExpected(
      String from, String to, String field) {
    ManifestException e =
        assertThrows(
            ManifestException.class, () -> parse(TestPackage.GOOD_DESCRIPTOR.replace(from, to)));
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith("plugin.yaml: field '" + field + "': "), e.getMessage());
  }

  @Test
  void readsASkillsAudienceAndRefusesAnUnknownOne() throws Exception {
    String operator =
        TestPackage.GOOD_DESCRIPTOR.replace(
            "tools: [sample_tool]\n", "tools: [sample_tool]\n    audience: operator\n");
    assertEquals(SkillDeclaration.Audience.OPERATOR, parse(operator).skills().get(0).audience());
    ManifestException e =
        assertThrows(ManifestException.class, () -> parse(operator.replace("operator", "admin")));
    assertEquals("skills[0].audience", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("agent or operator"), e.getMessage());
  }

  @Test
  void refusesBrokenYamlWithItsLine() {
    ManifestException e =
        assertThrows(ManifestException.class, () -> parse("id: a\nversion: [1.0\n"));
    assertTrue(e.getMessage().contains("valid YAML at line"), e.getMessage());
  }

  @Test
  void refusesAnInjectSectionThatIsNotAMapping() {
    ManifestException e =
        assertThrows(
            ManifestException.class,
            () ->
                parse(
                    TestPackage.GOOD_DESCRIPTOR.replace(
                        "inject:\n  required: [storageDomain]\n  optional: [attachments]\n",
                        "inject: storageDomain\n")));
    assertEquals("inject", e.field());
  }

  @Test
  void findsTheDescriptorOfAPluginDirectoryAndRefusesABrokenOne(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    var finder = new YamlPluginDescriptorFinder();
    assertTrue(!finder.isApplicable(dir));
    Files.writeString(dir.resolve("plugin.yaml"), TestPackage.GOOD_DESCRIPTOR);
    assertTrue(finder.isApplicable(dir));
    assertEquals("sample", finder.find(dir).getPluginId());
    Files.writeString(
        dir.resolve("plugin.yaml"),
        TestPackage.GOOD_DESCRIPTOR.replace("version: 1.0.0", "version: x"));
    var e = assertThrows(org.pf4j.PluginRuntimeException.class, () -> finder.find(dir));
    assertTrue(e.getMessage().contains("field 'version'"), e.getMessage());
  }
}
