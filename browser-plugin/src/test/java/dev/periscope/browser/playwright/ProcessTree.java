package dev.periscope.browser.playwright;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The memory of this process and every process it started, for benchmarks: summed RSS (which counts
 * the pages Chromium's processes share once per process) and summed PSS (each shared page divided
 * among its sharers: what the tree really holds); and the CPU time the tree has used.
 */
final class ProcessTree {
  private ProcessTree() {}

  static long rss() {
    return sum("status", "VmRSS:");
  }

  static long pss() {
    return sum("smaps_rollup", "Pss:");
  }

  /**
   * The CPU time (user and system) this process and the processes it runs now have used, in ms;
   * processes that already ended are not counted.
   */
  static long cpuMillis() {
    return tree().mapToLong(p -> ticks(p.pid()) * 1000 / USER_HZ).sum();
  }

  /** The unit of the CPU times in /proc/PID/stat: 100 on every Linux architecture we run. */
  private static final long USER_HZ = 100;

  private static long ticks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // Fields after the command (which may hold spaces), from the third: utime is the 14th.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static long sum(String file, String field) {
    return tree().mapToLong(p -> kilobytes(p.pid(), file, field) * 1024).sum();
  }

  /** This process and every process it started that still runs. */
  private static Stream<ProcessHandle> tree() {
    return Stream.concat(Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants());
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
