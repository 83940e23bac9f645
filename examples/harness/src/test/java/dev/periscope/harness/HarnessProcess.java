package dev.periscope.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs the harness command line as a real subprocess (the classes and libraries this module built),
 * as a user's shell would, and records every process it starts while it runs.
 */
public final class HarnessProcess {
  public static final Path PACKAGE =
      Path.of(
              System.getProperty(
                  "periscope.package", "../../browser-plugin/target/periscope-browser-0.1.0.zip"))
          .toAbsolutePath()
          .normalize();

  /**
   * A finished harness process: {@code descendants} every process it started, recorded while it
   * ran, and {@code commands} the command of each as seen then (a process that has exited no longer
   * says its command).
   */
  public record Result(
      int exitCode, String out, String err, Set<ProcessHandle> descendants, Set<String> commands) {}

  private HarnessProcess() {}

  /**
   * The command line {@code ./harness} runs, from this module's classes and libraries: the same JVM
   * options (its own output to standard error, the JIT's first tier only, an application class-data
   * archive of the harness's classes) and the temp directory given.
   */
  public static List<String> java(Path tmp) {
    return java(tmp, false);
  }

  /** The same; {@code http}: for {@code mcp --http}, which ./harness runs with the JIT's C2. */
  public static List<String> java(Path tmp, boolean http) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+DisplayVMOutputToStderr",
                "-Xlog:disable",
                "-Xlog:all=warning:stderr"));
    if (!http) {
      command.add("-XX:TieredStopAtLevel=1");
    }
    ClassData.archive().ifPresent(a -> command.add("-XX:SharedArchiveFile=" + a));
    command.addAll(
        List.of(
            "-Djava.io.tmpdir=" + tmp,
            "-cp",
            ClassData.classPath(),
            "dev.periscope.harness.cli.Main"));
    return command;
  }

  public static Result run(Path home, Path tmp, String... args)
      throws IOException, InterruptedException {
    return run(home, tmp, null, args);
  }

  /** Runs with {@code input} as standard input (none: /dev/null). */
  public static Result run(Path home, Path tmp, byte[] input, String... args)
      throws IOException, InterruptedException {
    return run(home, tmp, input, Map.of(), args);
  }

  /**
   * Runs with {@code input} as standard input (none: /dev/null) and {@code environment} added to
   * its own.
   */
  public static Result run(
      Path home, Path tmp, byte[] input, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    List<String> command = java(tmp, List.of(args).contains("--http"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.put("HARNESS_HOME", home.toString());
    env.put("TMPDIR", tmp.toString());
    // No approval prompt reaches the terminal of whoever runs the tests; a test can name a device
    // of its own.
    env.put("HARNESS_TTY", "none");
    env.putAll(environment);
    Path in = null;
    if (input == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    } else {
      in =
          java.nio.file.Files.write(
              java.nio.file.Files.createTempFile("harness-in-", ".txt"), input);
      pb.redirectInput(in.toFile());
    }
    Path out = java.nio.file.Files.createTempFile("harness-out-", ".txt");
    Path err = java.nio.file.Files.createTempFile("harness-err-", ".txt");
    pb.redirectOutput(out.toFile());
    pb.redirectError(err.toFile());
    Process p = pb.start();
    Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();
    Set<String> commands = ConcurrentHashMap.newKeySet();
    // Descendants are recorded while the harness lives: after it exits, orphans would no longer be
    // its children.
    while (!p.waitFor(20, TimeUnit.MILLISECONDS)) {
      p.toHandle()
          .descendants()
          .forEach(
              d -> {
                seen.add(d);
                d.info().command().ifPresent(commands::add);
              });
    }
    try {
      return new Result(
          p.exitValue(),
          java.nio.file.Files.readString(out, StandardCharsets.UTF_8),
          java.nio.file.Files.readString(err, StandardCharsets.UTF_8),
          seen,
          commands);
    } finally {
      java.nio.file.Files.deleteIfExists(out);
      java.nio.file.Files.deleteIfExists(err);
      if (in != null) {
        java.nio.file.Files.deleteIfExists(in);
      }
    }
  }
}
