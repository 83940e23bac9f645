package dev.periscope.browser.playwright;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The resident memory of this process and every process it started, for benchmarks. */
final class ProcessTree {
  private ProcessTree() {}

  static long rss() {
    return Stream.concat(Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants())
        .mapToLong(p -> rss(p.pid()))
        .sum();
  }

  private static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
