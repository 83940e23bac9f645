package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.ConfigurationException;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.host.Attachment;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.runtime.FakeProvider;
import dev.periscope.browser.runtime.RuntimeSettings;
import dev.periscope.browser.runtime.SessionDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * browser_attach_file on real files: offered only with upload roots, a file inside a root stored as
 * an attachment of the calling agent session, and every way out of the roots refused with nothing
 * stored: {@code ..}, an absolute path outside, a link inside a root that points outside, a file
 * over uploads.maxBytes, a directory, a missing file, uploads off.
 */
class AttachFileTest {
  @TempDir Path dir;
  private Path root;
  private Path second;
  private Path outside;
  private final MemoryAttachments store = new MemoryAttachments();
  private final DefaultBrowserRuntime runtime =
      DefaultBrowserRuntime.builder(RuntimeSettings.defaults()).build();
  private BrowserTools tools;

  @BeforeEach
  void files() throws Exception {
    runtime.registerProvider(new FakeProvider("fake", true));
    root = Files.createDirectories(dir.resolve("inbox"));
    second = Files.createDirectories(dir.resolve("more"));
    outside = Files.createDirectories(dir.resolve("private"));
    Files.writeString(root.resolve("receipt.pdf"), "%PDF-1.4 receipt");
    Files.createDirectories(root.resolve("photos"));
    Files.write(root.resolve("photos/cat.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    Files.writeString(second.resolve("notes.txt"), "notes");
    Files.writeString(outside.resolve("secret.txt"), "the secret");
    Files.write(root.resolve("big.bin"), new byte[2_001]);
    Files.createSymbolicLink(root.resolve("escape.txt"), outside.resolve("secret.txt"));
    Files.createSymbolicLink(root.resolve("away"), outside);
    Files.createSymbolicLink(root.resolve("alias.pdf"), root.resolve("receipt.pdf"));
    Files.createSymbolicLink(root.resolve("dangling.txt"), outside.resolve("gone.txt"));
  }

  @AfterEach
  void stop() {
    if (tools != null) {
      tools.close();
    }
    runtime.close();
  }

  private List<Tool> tools(Map<String, Object> uploads) {
    Map<String, Object> config = new HashMap<>();
    config.put("persistence", "ephemeral");
    if (uploads != null) {
      config.put("uploads", uploads);
    }
    if (tools != null) {
      tools.close();
    }
    tools =
        new BrowserTools(
            runtime,
            SessionDirectory.inMemory(),
            BrowserSettings.from(new PluginConfiguration(config)).tools(),
            Optional.of(store),
            CredentialChannel.none(),
            false);
    return tools.tools();
  }

  private List<Tool> withRoots() {
    return tools(
        Map.of(
            "enabled",
            true,
            "maxBytes",
            2_000,
            "roots",
            List.of(root.toString(), second.toString())));
  }

  private static ToolResult attach(List<Tool> tools, String agent, String path) {
    return tools.stream()
        .filter(t -> t.descriptor().name().equals("browser_attach_file"))
        .findFirst()
        .orElseThrow()
        .call(new ToolCall(Map.of("path", path), agent, Cancellation.none()));
  }

  @SuppressWarnings("unchecked")
  private static String ref(ToolResult r) {
    assertFalse(r.isError(), r.text());
    return (String) ((Map<String, Object>) r.structured().get("attachment")).get("ref");
  }

  private static List<String> names(List<Tool> tools) {
    return tools.stream().map(t -> t.descriptor().name()).toList();
  }

  @Test
  void isNotOfferedWithoutUploadRoots() {
    assertFalse(names(tools(null)).contains("browser_attach_file"));
    assertFalse(names(tools(Map.of("enabled", true))).contains("browser_attach_file"));
    List<String> offered = names(withRoots());
    // Right after browser_upload, as plugin.yaml lists it.
    assertEquals(
        offered.indexOf("browser_upload") + 1,
        offered.indexOf("browser_attach_file"),
        offered.toString());
  }

  @Test
  void aFileInsideARootBecomesAnAttachmentOfTheCallingAgentSession() throws Exception {
    List<Tool> offered = withRoots();
    ToolResult r = attach(offered, "agent-a", "receipt.pdf");
    Attachment a = store.open(ref(r)).orElseThrow();
    assertEquals("agent-a", a.agentSessionId());
    assertEquals("application/pdf", a.mimeType());
    assertArrayEquals(Files.readAllBytes(root.resolve("receipt.pdf")), a.content());
    assertTrue(r.text().contains("browser_upload"), r.text());
    assertFalse(r.text().contains(dir.toString()), "no host path in the result: " + r.text());

    assertEquals(
        "image/png",
        store.open(ref(attach(offered, "agent-a", "photos/cat.png"))).orElseThrow().mimeType());
    assertEquals(
        "text/plain",
        store.open(ref(attach(offered, "agent-b", "notes.txt"))).orElseThrow().mimeType());
    assertEquals(
        "agent-b",
        store
            .open(ref(attach(offered, "agent-b", root.resolve("photos/cat.png").toString())))
            .orElseThrow()
            .agentSessionId());
    // A link that stays inside its root is followed.
    ref(attach(offered, "agent-a", "alias.pdf"));
    assertEquals(5, store.size());
  }

  @Test
  void everyWayOutOfTheRootsAndEveryBadFileIsRefusedWithNothingStored() throws Exception {
    List<Tool> offered = withRoots();
    record Case(String path, String code, String says) {}
    List<Case> cases =
        List.of(
            new Case(
                "../private/secret.txt", "BROWSER_POLICY_DENIED", "plugins.browser.uploads.roots"),
            new Case("photos/../../private/secret.txt", "BROWSER_POLICY_DENIED", "'..'"),
            new Case(
                outside.resolve("secret.txt").toString(),
                "BROWSER_POLICY_DENIED",
                "outside the upload roots (plugins.browser.uploads.roots)"),
            new Case("/etc/passwd", "BROWSER_POLICY_DENIED", "plugins.browser.uploads.roots"),
            new Case("escape.txt", "BROWSER_POLICY_DENIED", "leads outside its upload root"),
            new Case("away/secret.txt", "BROWSER_POLICY_DENIED", "leads outside its upload root"),
            new Case(
                root.resolve("away/secret.txt").toString(),
                "BROWSER_POLICY_DENIED",
                "leads outside its upload root"),
            new Case("big.bin", "BROWSER_POLICY_DENIED", "plugins.browser.uploads.maxBytes"),
            new Case("photos", "BROWSER_INVALID_ARGUMENT", "is a directory"),
            new Case("missing.txt", "BROWSER_INVALID_ARGUMENT", "there is no file"),
            new Case("dangling.txt", "BROWSER_INVALID_ARGUMENT", "there is no file"));
    for (Case c : cases) {
      ToolResult r = attach(offered, "agent", c.path());
      assertTrue(r.isError(), c.path() + ": " + r.text());
      assertTrue(r.text().contains("code=" + c.code()), c.path() + ": " + r.text());
      assertTrue(r.text().contains(c.path()), "names the path: " + r.text());
      assertTrue(r.text().contains(c.says()), c.path() + ": " + r.text());
      // Where a link leads is never said.
      assertFalse(!c.path().contains("private") && r.text().contains(outside.toString()), r.text());
    }
    assertEquals(0, store.size());
  }

  @Test
  void uploadsOffRefuseEveryFileAndNameTheSetting() {
    List<Tool> off = tools(Map.of("enabled", false, "roots", List.of(root.toString())));
    ToolResult r = attach(off, "agent", "receipt.pdf");
    assertTrue(r.text().contains("code=BROWSER_POLICY_DENIED"), r.text());
    assertTrue(r.text().contains("plugins.browser.uploads.enabled is false"), r.text());
    // Strict network mode, the default, keeps uploads off unless the project turns them on.
    ToolResult strict =
        attach(tools(Map.of("roots", List.of(root.toString()))), "agent", "receipt.pdf");
    assertTrue(strict.text().contains("(the default in strict network mode)"), strict.text());
    assertEquals(0, store.size());
  }

  @Test
  void aRootMustBeAnAbsolutePath() {
    ConfigurationException e =
        assertThrows(
            ConfigurationException.class,
            () ->
                BrowserSettings.from(
                    new PluginConfiguration(Map.of("uploads", Map.of("roots", List.of("inbox"))))));
    assertEquals("plugins.browser.uploads.roots[0]", e.path());
    assertTrue(e.getMessage().contains("absolute"), e.getMessage());
  }
}
