package dev.periscope.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The tests' harness processes start as {@code ./harness} starts them once it has made its
 * application class-data archive: from a jar of this module's classes, with an archive of the
 * classes a harness process loads (made once per test run, by a process that lists a profile's
 * sessions). Each start is then about a third of a second shorter, and the tests start a few
 * hundred. When the archive cannot be made, processes start without one.
 */
final class ClassData {
  private ClassData() {}

  private static final Path DIR = Path.of("target", "test-class-data").toAbsolutePath();

  private static String classPath;
  private static Optional<Path> archive;

  /** The jar of this module's classes (made at the first call), then its libraries. */
  static synchronized String classPath() {
    if (classPath == null) {
      Path jar = DIR.resolve("harness-classes.jar");
      try {
        Files.createDirectories(DIR);
        jarOf(Path.of("target", "classes"), jar);
        classPath = jar + java.io.File.pathSeparator + "target/lib/*";
      } catch (IOException e) {
        // Without the jar (CDS needs one), the classes directory as it is.
        classPath = "target/classes" + java.io.File.pathSeparator + "target/lib/*";
      }
    }
    return classPath;
  }

  /** The archive, made at the first call; empty when it could not be. */
  static synchronized Optional<Path> archive() {
    if (archive == null) {
      archive = make();
    }
    return archive;
  }

  private static Optional<Path> make() {
    String cp = classPath();
    if (!cp.endsWith(".jar" + java.io.File.pathSeparator + "target/lib/*")) {
      return Optional.empty();
    }
    Path made = DIR.resolve("harness.jsa");
    Path home = null;
    try {
      Files.deleteIfExists(made);
      home = Files.createTempDirectory("harness-class-data-");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> base =
          List.of(java, "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + home, "-cp", cp);
      run(
          home,
          base,
          List.of("plugin", "add", "--profile", "p", HarnessProcess.PACKAGE.toString()));
      List<String> dump = new java.util.ArrayList<>(base);
      dump.add(1, "-XX:ArchiveClassesAtExit=" + made);
      dump.add(2, "-Xlog:cds*=off");
      run(home, dump, List.of("sessions", "--profile", "p"));
      return Files.size(made) > 0 ? Optional.of(made) : Optional.empty();
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("no class-data archive for the harness processes: " + e);
      return Optional.empty();
    } finally {
      if (home != null) {
        dev.periscope.harness.profile.PluginInstaller.deleteTree(home);
      }
    }
  }

  private static void run(Path home, List<String> java, List<String> args)
      throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(java);
    command.add("dev.periscope.harness.cli.Main");
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("HARNESS_HOME", home.toString());
    pb.environment().put("HARNESS_TTY", "none");
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", args) + " did not end well");
    }
  }

  /** A jar of every file under {@code classes}. */
  private static void jarOf(Path classes, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream zip = new JarOutputStream(out);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        zip.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, zip);
        zip.closeEntry();
      }
    }
  }
}
