package dev.periscope.browser.docs;

import static org.junit.jupiter.api.Assertions.fail;

import dev.periscope.verify.ManifestReader;
import dev.periscope.verify.PluginManifest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The references in docs/ that are generated, tools.md and configuration-reference.md, are what the
 * code and plugin.yaml say now. Run with {@code -Dperiscope.docs.write=true} (the command is {@link
 * Markdown#REGENERATE}), it writes them instead.
 */
class GeneratedDocsTest {
  private static final Path ROOT = Path.of("..");

  @Test
  void theToolsAndConfigurationReferencesMatchTheCode() throws Exception {
    PluginManifest manifest = ManifestReader.read(ROOT.resolve("plugin.yaml"));
    Map<String, String> generated =
        Map.of(
            "docs/tools.md",
            ToolsReference.render(manifest.skills(), manifest.configSchema()),
            "docs/configuration-reference.md",
            ConfigurationReference.render(manifest.configSchema()));
    boolean write = Boolean.getBoolean("periscope.docs.write");
    for (var file : generated.entrySet()) {
      Path path = ROOT.resolve(file.getKey());
      if (write) {
        Files.writeString(path, file.getValue(), StandardCharsets.UTF_8);
        continue;
      }
      String onDisk = Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
      if (!onDisk.equals(file.getValue())) {
        fail(
            file.getKey()
                + " is not what the code and plugin.yaml say now; "
                + firstDifference(onDisk, file.getValue())
                + "\nIt is generated, not edited by hand. Regenerate it from the repository root"
                + " with:\n"
                + Markdown.REGENERATE);
      }
    }
  }

  /** Where two texts first differ, by line, for a message a person can act on. */
  private static String firstDifference(String onDisk, String generated) {
    List<String> a = onDisk.lines().toList();
    List<String> b = generated.lines().toList();
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      String x = i < a.size() ? a.get(i) : "(end of file)";
      String y = i < b.size() ? b.get(i) : "(end of file)";
      if (!x.equals(y)) {
        return "line " + (i + 1) + " is\n  " + x + "\nwhere the code gives\n  " + y;
      }
    }
    return "they differ only in line endings";
  }
}
