package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temp roots left by a killed host are removed at the next start; a running host's root stays. */
class TempRootsTest {
  @TempDir Path tmp;

  @Test
  void removesTheRootsOfHostsThatAreGoneAndKeepsTheLivingOnes() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path abandoned = Files.createDirectories(tmp.resolve("periscope-0badc0de/e1/chromium-profile"));
    Files.writeString(tmp.resolve("periscope-0badc0de/owner"), TempRoots.identity(gone.toHandle()));
    Path mine = TempRoots.create(tmp);
    Path unrelated = Files.createDirectory(tmp.resolve("periscope-notours"));

    TempRoots.removeAbandoned(tmp);

    assertFalse(
        Files.exists(abandoned.getParent().getParent()), "the killed host's root is still there");
    assertTrue(Files.exists(mine), "this process's own root was removed");
    assertTrue(Files.exists(unrelated), "a directory that is not a temp root was removed");
  }
}
