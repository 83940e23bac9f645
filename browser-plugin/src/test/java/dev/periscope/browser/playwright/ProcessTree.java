package dev.periscope.browser.playwright;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The memory of this process and every process it started, for benchmarks: summed RSS (which counts
 * the pages Chromium's processes share once per process) and summed PSS (each shared page divided
 * among its sharers: what the tree really holds).
 */
final class ProcessTree {
  private ProcessTree() {}

  static long rss() {
    return sum("status", "VmRSS:");
  }

  static long pss() {
    return sum("smaps_rollup", "Pss:");
  }

  private static long sum(String file, String field) {
    return Stream.concat(Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants())
        .mapToLong(p -> kilobytes(p.pid(), file, field) * 1024)
        .sum();
  }

  private static long kilobytes(long pid, String file, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), file))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
