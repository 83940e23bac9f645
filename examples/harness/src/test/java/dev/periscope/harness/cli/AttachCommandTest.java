package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.LoginSite;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness attach} as a user runs it: local files stored in the profile's attachment store,
 * one line each with its ref, then uploaded by that ref into a page's file input by {@code harness
 * run} in the owning agent session (and refused to another); a missing file, a directory and a file
 * over the upload limit stored as nothing, with a clear message and exit 1.
 */
class AttachCommandTest {
  @TempDir Path home;
  @TempDir Path tmp;
  @TempDir Path project;
  @TempDir Path files;

  @BeforeEach
  void install() throws Exception {
    InstalledProfiles.install(new HarnessHome(home), "p");
  }

  private HarnessProcess.Result harness(String... args) throws Exception {
    return HarnessProcess.run(home, tmp, args);
  }

  /** What the profile's attachment store holds: its files. */
  private List<Path> stored() throws Exception {
    Path dir = new HarnessHome(home).profile("p").attachments();
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> listed = Files.list(dir)) {
      return listed.toList();
    }
  }

  private static void assertUserError(HarnessProcess.Result r, String expected) {
    assertEquals(1, r.exitCode(), r.out() + r.err());
    assertTrue(r.err().contains(expected), r.err());
    assertEquals("", r.out());
    assertFalse(r.err().contains("\tat "), "a stack trace reached the user: " + r.err());
  }

  @Test
  void aStoredFileIsUploadedByItsRefInTheOwningSessionOnly() throws Exception {
    Path photo = Files.write(files.resolve("cat.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    Path notes = Files.writeString(files.resolve("notes.txt"), "hello");
    var attached =
        harness(
            "attach", "--profile", "p", "--session", "agent-1", photo.toString(), notes.toString());
    assertEquals(0, attached.exitCode(), attached.out() + attached.err());
    List<String> lines = attached.out().lines().toList();
    assertEquals(2, lines.size(), attached.out());
    assertTrue(
        lines.get(0).matches("attachment-[0-9a-f-]{36}  image/png  4 bytes  cat\\.png"),
        lines.get(0));
    assertTrue(
        lines.get(1).matches("attachment-[0-9a-f-]{36}  text/plain  5 bytes  notes\\.txt"),
        lines.get(1));
    String ref = lines.get(0).split(" ")[0];

    TestProjects.project(project, TestProjects.LOOPBACK_ONLY);
    try (LoginSite site = new LoginSite()) {
      Path script = project.resolve("upload.yaml");
      Files.writeString(
          script,
          """
          steps:
            - {tool: browser_open, args: {url: "%s"}}
            - {tool: browser_upload, args: {target: {name: Photo}, attachment_refs: [%s]}}
          """
              .formatted(site.url("/workbench"), ref));
      var run =
          harness(
              "run",
              "--profile",
              "p",
              "--project",
              project.toString(),
              "--session",
              "agent-1",
              script.toString());
      assertEquals(0, run.exitCode(), run.out() + run.err());
      assertTrue(run.out().contains("photo image/png"), run.out());

      // Another agent session cannot send it.
      Files.writeString(
          script,
          """
          steps:
            - {tool: browser_open, args: {url: "%s"}}
            - {tool: browser_upload, args: {target: {name: Photo}, attachment_refs: [%s]}, expect: error}
          """
              .formatted(site.url("/workbench"), ref));
      var other =
          harness(
              "run",
              "--profile",
              "p",
              "--project",
              project.toString(),
              "--session",
              "agent-2",
              script.toString());
      assertEquals(0, other.exitCode(), other.out() + other.err());
      assertTrue(
          other.out().contains("there is no attachment \"" + ref + "\" of this agent session"),
          other.out());
    }
  }

  @Test
  void aMissingFileADirectoryOrAFileOverTheLimitStoresNothing() throws Exception {
    Path good = Files.writeString(files.resolve("good.txt"), "fine");
    Path missing = files.resolve("missing.txt");
    assertUserError(
        harness("attach", "--profile", "p", good.toString(), missing.toString()),
        "nothing was stored:\n - " + missing + " does not exist");
    assertUserError(
        harness("attach", "--profile", "p", files.toString()),
        files + " is a directory; name files");

    // The project's uploads.maxBytes, when a project is given.
    TestProjects.project(project, TestProjects.LOOPBACK_ONLY + "    uploads: {maxBytes: 3}\n");
    assertUserError(
        harness("attach", "--profile", "p", "--project", project.toString(), good.toString()),
        good + " is over the upload limit of 3 bytes (plugins.browser.uploads.maxBytes)");
    // Else the default, 10 MiB.
    Path big = Files.write(files.resolve("big.bin"), new byte[10 * 1024 * 1024 + 1]);
    assertUserError(
        harness("attach", "--profile", "p", big.toString()),
        big + " is over the upload limit of 10485760 bytes (plugins.browser.uploads.maxBytes)");
    if (!"root".equals(System.getProperty("user.name"))) {
      Path locked = Files.writeString(files.resolve("locked.txt"), "locked");
      Files.setPosixFilePermissions(locked, java.util.Set.of());
      assertUserError(
          harness("attach", "--profile", "p", locked.toString()),
          locked + " cannot be read: permission denied");
    }
    assertEquals(List.of(), stored());

    // No file at all is a usage error, as every command's.
    var none = harness("attach", "--profile", "p");
    assertEquals(2, none.exitCode(), none.err());
    assertTrue(none.err().contains("Missing required parameter: 'FILE'"), none.err());
    var help = harness("--help");
    assertTrue(help.out().contains("  attach "), help.out());
  }
}
