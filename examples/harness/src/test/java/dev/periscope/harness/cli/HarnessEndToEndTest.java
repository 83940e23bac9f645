package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.periscope.attachments.FileAttachmentService;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.demo.DemoSite;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.Yaml;
import dev.periscope.storage.SqliteStorageDomains;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path: the real built package added by the CLI, then a scripted session in a harness
 * subprocess.
 */
class HarnessEndToEndTest {
  @TempDir Path home;
  @TempDir Path project;
  @TempDir Path tmp;

  @Test
  void addsThePackageRunsAScriptedSessionAndLeavesNothingBehind() throws Exception {
    var add =
        HarnessProcess.run(
            home, tmp, "plugin", "add", "--profile", "e2e", HarnessProcess.PACKAGE.toString());
    assertEquals(0, add.exitCode(), add.err());
    assertTrue(add.out().startsWith("installed browser 0.1.0 into profile e2e"), add.out());
    assertTrue(add.out().contains("sha256: "), add.out());

    Files.createDirectories(project.resolve(".harness"));
    Files.writeString(
        project.resolve(".harness/project.yaml"),
        """
        plugins:
          browser:
            network:
              mode: allowlist
              allowCidrs: ["127.0.0.1/32"]
        """);
    Path script = project.resolve("script.yaml");
    try (DemoSite site = DemoSite.standard()) {
      Files.writeString(
          script,
          """
          steps:
            - {tool: browser_open, args: {url: "%s"}}
            - {tool: browser_observe}
            - {tool: browser_click, args: {target: {role: button, name: "Show the answer"}}}
            - {tool: browser_observe}
            - {tool: browser_screenshot}
            - {tool: browser_open, args: {url: "ftp://127.0.0.1/file"}, expect: error}
          """
              .formatted(site.url("/")));
      var run =
          HarnessProcess.run(
              home,
              tmp,
              "run",
              "--profile",
              "e2e",
              "--project",
              project.toString(),
              "--session",
              "agent-1",
              "--json",
              script.toString());
      assertEquals(0, run.exitCode(), run.out() + run.err());
      // At startup the harness says what the browser runs with: Chromium, headless, the network
      // policy.
      assertTrue(
          run.err()
              .lines()
              .anyMatch(
                  l ->
                      l.contains("browser provider playwright: Chromium /")
                          && l.contains("(headless)")),
          run.err());
      assertTrue(
          run.err()
              .lines()
              .anyMatch(
                  l ->
                      l.contains(
                          "browser plugin: network allowlist, allowHosts [],"
                              + " allowCidrs [127.0.0.1/32], denyCidrs []")),
          run.err());

      List<JsonNode> steps = new ArrayList<>();
      for (String line : run.out().split("\n")) {
        steps.add(Yaml.JSON.readTree(line));
      }
      assertEquals(6, steps.size(), run.out());
      steps.subList(0, 5).forEach(s -> assertFalse(s.get("isError").asBoolean(), s.toString()));
      // A failure carries its failure line for the model and the same failure as data.
      assertTrue(steps.get(5).get("isError").asBoolean(), steps.get(5).toString());
      JsonNode error = steps.get(5).get("structured").get("error");
      assertEquals("BROWSER_INVALID_URL", error.get("code").asText());
      assertEquals(
          "only absolute http and https URLs can be opened: ftp://127.0.0.1/file",
          error.get("message").asText());
      assertEquals("valid", error.get("observation").asText());
      assertEquals("intact", error.get("lease").asText());
      assertTrue(error.get("recommended_action").isNull(), error.toString());
      assertFalse(error.get("retryable").asBoolean());
      assertTrue(
          steps
              .get(5)
              .get("text")
              .asText()
              .endsWith(
                  "code=BROWSER_INVALID_URL url="
                      + error.get("url").asText()
                      + " observation=valid lease=intact retryable=false"),
          steps.get(5).toString());
      assertFalse(steps.get(1).get("text").asText().contains("217 steps"));
      assertTrue(steps.get(2).get("text").asText().startsWith("Transition transition-"));
      assertTrue(
          steps.get(3).get("text").asText().contains("There are 217 steps to the lamp room."));
      JsonNode observation = steps.get(3).get("structured").get("observation");
      // After the bar at the top (its Home and About links), the button, renamed by its click.
      JsonNode button = observation.get("elements").get(2);
      assertEquals("Answer shown", button.get("name").asText(), observation.toString());
      assertEquals("button", button.get("role").asText());

      // No host path appears in any tool result: refs are opaque.
      for (JsonNode s : steps) {
        assertFalse(s.toString().contains(home.toString()), "a host path leaked: " + s);
        assertFalse(s.toString().contains(tmp.toString()), "a host path leaked: " + s);
        assertFalse(s.toString().contains(project.toString()), "a host path leaked: " + s);
        assertFalse(s.toString().contains("/attachments/"), "a host path leaked: " + s);
      }

      String ref = steps.get(4).get("structured").get("attachment").get("ref").asText();
      assertTrue(ref.startsWith("attachment-"), ref);
      var profile = new HarnessHome(home).profile("e2e");
      try (SqliteStorageDomains storage = new SqliteStorageDomains(profile.data())) {
        var store =
            new FileAttachmentService(
                profile.attachments(),
                storage.open("attachments", FileAttachmentService.MIGRATIONS),
                FileAttachmentService.DEFAULT_MAX_BYTES);
        var attachment = store.open(ref).orElseThrow();
        assertEquals("image/png", attachment.mimeType());
        assertEquals("agent-1", attachment.agentSessionId());
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(attachment.content()));
        assertNotNull(image, "the attachment is not a PNG");
        assertEquals(1280, image.getWidth());
        assertEquals(720, image.getHeight());
      }

      // Every process the harness started is gone, checked by process id.
      List<String> kinds =
          run.descendants().stream().map(p -> p.info().command().orElse("?")).toList();
      assertTrue(run.descendants().size() >= 2, "expected Node.js and Chromium among " + kinds);
      for (ProcessHandle p : run.descendants()) {
        p.onExit().get(10, TimeUnit.SECONDS);
        assertFalse(p.isAlive(), "left running: " + p.pid());
      }
      // And nothing it made in its temp directory stays.
      try (var left = Files.list(tmp)) {
        assertEquals(List.of(), left.map(Path::toString).toList());
      }
    }
  }
}
