package dev.periscope.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PackageVerifierTest {
  @TempDir Path dir;

  private VerificationReport verify(TestPackage p) throws Exception {
    return new PackageVerifier().verify(p.writeTo(dir.resolve("sample.zip")), Optional.empty());
  }

  private static void assertOnlyFailure(VerificationReport report, String expected) {
    assertFalse(report.passed(), "expected a failure containing: " + expected);
    assertEquals(1, report.failures().size(), report.render());
    assertTrue(report.failures().get(0).contains(expected), report.render());
  }

  @Test
  void passesAGoodPackageWithASummaryEndingInItsSha256() throws Exception {
    VerificationReport report = verify(new TestPackage());
    assertTrue(report.passed(), report.render());
    String[] lines = report.render().split("\n");
    assertEquals(
        "sha256: " + PackageVerifier.sha256(dir.resolve("sample.zip")), lines[lines.length - 1]);
    assertTrue(report.render().contains("extensions: sample.SampleExtension"), report.render());
  }

  @Test
  void refusesAFileThatIsNotAZip() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.zip"), "just text");
    var report = new PackageVerifier().verify(file, Optional.empty());
    assertOnlyFailure(report, "not a plugin package: notes.zip is not a zip archive");
  }

  @Test
  void refusesAZipWithoutADescriptor() throws Exception {
    Path file = dir.resolve("other.zip");
    try (var zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(file))) {
      zip.putNextEntry(new java.util.zip.ZipEntry("readme.txt"));
      zip.write("hello".getBytes());
    }
    assertOnlyFailure(
        new PackageVerifier().verify(file, Optional.empty()), "has no plugin.yaml at its root");
  }

  @Test
  void namesTheFieldOfAnInvalidDescriptor() throws Exception {
    assertOnlyFailure(
        verify(new TestPackage().replaceInDescriptor("version: 1.0.0", "version: one")),
        "field 'version': a semantic version");
  }

  @Test
  void reportsAPackagedDescriptorThatDiffersFromTheSource() throws Exception {
    Path zip = new TestPackage().writeTo(dir.resolve("sample.zip"));
    Path source =
        Files.writeString(
            dir.resolve("plugin.yaml"), TestPackage.GOOD_DESCRIPTOR.replace("1.0.0\n", "1.0.1\n"));
    assertOnlyFailure(new PackageVerifier().verify(zip, Optional.of(source)), "differs from");
    Path same = Files.writeString(dir.resolve("same.yaml"), TestPackage.GOOD_DESCRIPTOR);
    assertTrue(new PackageVerifier().verify(zip, Optional.of(same)).passed());
  }

  @Test
  void reportsAPluginClassMissingFromThePackage() throws Exception {
    assertOnlyFailure(
        verify(new TestPackage().withoutSource("sample.SamplePlugin")),
        "pluginClass: class sample.SamplePlugin is not in the package");
  }

  @Test
  void reportsAPluginClassThatIsNotAPlugin() throws Exception {
    assertOnlyFailure(
        verify(
            new TestPackage()
                .source("sample.SamplePlugin", "package sample; public class SamplePlugin {}")),
        "pluginClass: sample.SamplePlugin is not a org.pf4j.Plugin");
  }

  @Test
  void reportsAModuleThatIsNotAGuiceModule() throws Exception {
    assertOnlyFailure(
        verify(
            new TestPackage()
                .source("sample.SampleModule", "package sample; public class SampleModule {}")),
        "module: sample.SampleModule is not a com.google.inject.Module");
  }

  @Test
  void reportsAnExtensionMissingFromTheIndex() throws Exception {
    assertOnlyFailure(
        verify(new TestPackage().extensionsIndex("")),
        "@Extension class sample.SampleExtension is not listed in META-INF/extensions.idx");
  }

  @Test
  void reportsAnIndexEntryThatIsNotAnExtension() throws Exception {
    assertOnlyFailure(
        verify(new TestPackage().extensionsIndex("sample.SampleExtension\nsample.SampleModule\n")),
        "lists sample.SampleModule, which is not an @Extension class of the package");
  }

  @Test
  void reportsAHostProvidedArtifactInsideLib() throws Exception {
    Path guiceJar =
        Path.of(Guice.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertOnlyFailure(
        verify(new TestPackage().lib("guice-7.0.0.jar", guiceJar)),
        "lib/guice-7.0.0.jar is host-provided (guice)");
    // A renamed copy is caught by what it contains.
    assertOnlyFailure(
        verify(new TestPackage().lib("helpers.jar", guiceJar)),
        "lib/helpers.jar is host-provided (guice)");
  }

  @Test
  void reportsAnInjectNameTheHostApiDoesNotDefine() throws Exception {
    assertOnlyFailure(
        verify(
            new TestPackage()
                .replaceInDescriptor("optional: [attachments]", "optional: [database]")),
        "inject: 'database' is not a host service");
  }

  @Test
  void reportsAnInvalidHostApiRange() throws Exception {
    assertOnlyFailure(
        verify(new TestPackage().replaceInDescriptor("\">=2.0.0 & <3.0.0\"", "\"at least one\"")),
        "requires: 'at least one' is not a valid host API version range");
  }

  @Test
  void reportsAPackageOverItsSizeBudget() throws Exception {
    Path zip = new TestPackage().padding(50_000).writeTo(dir.resolve("sample.zip"));
    assertOnlyFailure(
        new PackageVerifier(40_000).verify(zip, Optional.empty()),
        "over its budget of 40000 bytes");
  }

  @Test
  void reportsEveryFailureOfABrokenPackageNotOnlyTheFirst() throws Exception {
    var report =
        verify(
            new TestPackage()
                .withoutSource("sample.SamplePlugin")
                .extensionsIndex("")
                .replaceInDescriptor("optional: [attachments]", "optional: [database]"));
    assertEquals(3, report.failures().size(), report.render());
  }

  @Test
  void commandExitsNonZeroListingFailuresAndZeroWithTheSummary() throws Exception {
    Path good = new TestPackage().writeTo(dir.resolve("good.zip"));
    Path bad = new TestPackage().extensionsIndex("").writeTo(dir.resolve("bad.zip"));
    var out = new ByteArrayOutputStream();
    var err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(0, new CommandLine(new VerifyCommand()).execute(good.toString()));
      assertEquals(1, new CommandLine(new VerifyCommand()).execute(bad.toString()));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("sha256: "), out.toString());
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("bad.zip: 1 verification failure"),
        err.toString());
    assertTrue(
        List.of(err.toString().split("\n")).stream().anyMatch(l -> l.contains("extensions.idx")));
  }

  @Test
  void refusesAnEntryThatWouldLandOutsideThePackage() throws Exception {
    Path zip = new TestPackage().writeTo(dir.resolve("sample.zip"));
    Path evil = dir.resolve("evil.zip");
    try (var in = new java.util.zip.ZipInputStream(Files.newInputStream(zip));
        var out = new java.util.zip.ZipOutputStream(Files.newOutputStream(evil))) {
      for (var e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
        out.write(in.readAllBytes());
      }
      out.putNextEntry(new java.util.zip.ZipEntry("lib/../../outside.txt"));
      out.write("x".getBytes());
    }
    var report = new PackageVerifier().verify(evil, Optional.empty());
    assertTrue(
        report.failures().contains("entry lib/../../outside.txt escapes the package"),
        report.render());
    assertFalse(Files.exists(dir.getParent().resolve("outside.txt")));
  }

  @Test
  void stopsUnpackingAPackageThatExpandsFarBeyondItsBudget() throws Exception {
    Path zip = dir.resolve("bomb.zip");
    try (var out = new java.util.zip.ZipOutputStream(Files.newOutputStream(zip))) {
      out.putNextEntry(new java.util.zip.ZipEntry("plugin.yaml"));
      out.write(TestPackage.GOOD_DESCRIPTOR.getBytes());
      out.putNextEntry(new java.util.zip.ZipEntry("lib/zeros.bin"));
      out.write(new byte[2_000_000]);
    }
    assertTrue(Files.size(zip) < 40_000);
    var report = new PackageVerifier(40_000).verify(zip, Optional.empty());
    assertTrue(
        report.failures().contains("size: package unpacks to more than 320000 bytes"),
        report.render());
  }
}
