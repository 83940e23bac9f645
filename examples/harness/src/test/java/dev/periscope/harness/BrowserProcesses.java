package dev.periscope.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The browsers' processes as tests and benchmarks find them: among this JVM's descendants, by pid,
 * each told apart by its command line as /proc has it.
 */
public final class BrowserProcesses {
  private BrowserProcesses() {}

  /** Every process this JVM started that still runs: the drivers and their browsers. */
  public static Set<ProcessHandle> browserProcesses() {
    return ProcessHandle.current()
        .descendants()
        .filter(BrowserProcesses::running)
        .collect(Collectors.toSet());
  }

  /**
   * The process's command line as /proc has it: Chromium rewrites its own (one string, spaces
   * inside), which {@code ProcessHandle.Info.arguments()} then does not see.
   */
  private static String args(ProcessHandle p) {
    try {
      return new String(
              Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  private static boolean isChromium(ProcessHandle p) {
    return p.info().command().map(c -> c.contains("chrom")).orElse(false);
  }

  /** Chromium's browser process: the one without a --type. */
  public static ProcessHandle browserProcess(Set<ProcessHandle> processes) {
    return processes.stream()
        .filter(p -> isChromium(p) && !args(p).contains("--type="))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no Chromium browser process among " + describe(processes)));
  }

  /** The Node.js driver. */
  public static ProcessHandle driverProcess(Set<ProcessHandle> processes) {
    return processes.stream()
        .filter(p -> p.info().command().map(c -> c.endsWith("/node")).orElse(false))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Node.js driver among " + describe(processes)));
  }

  /** The renderers that may hold the agent's page (a renderer of Chromium's own pages excepted). */
  public static List<ProcessHandle> pageRenderers(Set<ProcessHandle> processes) {
    List<ProcessHandle> renderers =
        processes.stream()
            .filter(
                p ->
                    isChromium(p)
                        && args(p).contains("--type=renderer")
                        && !args(p).contains("--top-chrome-webui"))
            .toList();
    if (renderers.isEmpty()) {
      throw new AssertionError("no renderer among " + describe(processes));
    }
    return renderers;
  }

  public static String describe(Set<ProcessHandle> processes) {
    return processes.stream()
        .map(
            p ->
                p.pid()
                    + " "
                    + p.info().command().orElse("?")
                    + (args(p).contains("--type=")
                        ? " " + args(p).replaceAll(".*(--type=\\S+).*", "$1")
                        : ""))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * Alive and not a zombie: an orphan that ended stays a zombie until PID 1 reaps it, alive to
   * ProcessHandle.
   */
  public static boolean running(ProcessHandle p) {
    if (!p.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
