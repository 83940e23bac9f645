package dev.periscope.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code harness credentials}: values go in through standard input and never come out, on screen or
 * on disk.
 */
class CredentialsCommandTest {
  @TempDir Path home;
  @TempDir Path tmp;
  @TempDir Path project;

  @Test
  void storesListsAndRemovesWithoutEverShowingAValue() throws Exception {
    String canary = "canary-" + Long.toHexString(System.nanoTime());
    InstalledProfiles.install(home, "p");
    var set =
        HarnessProcess.run(
            home,
            tmp,
            (canary + "\n").getBytes(StandardCharsets.UTF_8),
            "credentials",
            "set",
            "--profile",
            "p",
            "bank");
    assertEquals(0, set.exitCode(), set.err());
    assertEquals("stored bank in profile p\n", set.out());
    var list = HarnessProcess.run(home, tmp, "credentials", "list", "--profile", "p");
    assertEquals("bank\n", list.out());
    try (Stream<Path> files = Files.walk(home)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertFalse(
            new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(canary),
            f.toString());
      }
    }
    assertFalse((set.out() + set.err() + list.out() + list.err()).contains(canary));

    var bad =
        HarnessProcess.run(
            home,
            tmp,
            "x".getBytes(StandardCharsets.UTF_8),
            "credentials",
            "set",
            "--profile",
            "p",
            "../escape");
    assertEquals(1, bad.exitCode());
    assertTrue(bad.err().contains("is not a credential name"), bad.err());
    assertFalse(bad.err().contains("Exception"), bad.err());

    Path store = home.resolve("profiles/p/credentials.store");
    byte[] sealed = Files.readAllBytes(store);
    sealed[sealed.length - 1] ^= 1;
    Files.write(store, sealed);
    var tampered = HarnessProcess.run(home, tmp, "credentials", "list", "--profile", "p");
    assertEquals(1, tampered.exitCode());
    assertTrue(tampered.err().contains("failed its integrity check"), tampered.err());
    sealed[sealed.length - 1] ^= 1;
    Files.write(store, sealed);

    assertEquals(
        0,
        HarnessProcess.run(home, tmp, "credentials", "remove", "--profile", "p", "bank")
            .exitCode());
    assertEquals("", HarnessProcess.run(home, tmp, "credentials", "list", "--profile", "p").out());
  }

  @Test
  void refusesAMalformedOriginInTheProjectFileNamingIt() throws Exception {
    InstalledProfiles.install(home, "p");
    TestProjects.project(
        project,
        TestProjects.LOOPBACK_ONLY
            + """
        credentials:
          bank: {store: bank, origins: ["https://*bank.test"]}
        """);
    Path script =
        Files.writeString(project.resolve("s.yaml"), "steps:\n  - {tool: browser_observe}\n");
    var run =
        HarnessProcess.run(
            home,
            tmp,
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "s",
            script.toString());
    assertEquals(1, run.exitCode());
    assertTrue(
        run.err().contains("/credentials/bank/origins/0: invalid origin \"https://*bank.test\""),
        run.err());
  }
}
