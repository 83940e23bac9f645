package dev.periscope.verify;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Builds real plugin packages for tests: Java sources compiled against the host API, a plugin.yaml,
 * an extensions index and lib/ jars, zipped the way the build zips the browser plugin. Each method
 * changes one thing, so a test can break exactly one rule.
 */
public final class TestPackage {
  public static final String GOOD_DESCRIPTOR =
      """
      id: sample
      version: 1.0.0
      description: A sample plugin.
      provider: Tests
      license: Apache-2.0
      requires: ">=2.0.0 & <3.0.0"
      pluginClass: sample.SamplePlugin
      module: sample.SampleModule
      inject:
        required: [storageDomain]
        optional: [attachments]
      skills:
        - name: sample
          tools: [sample_tool]
          guidance: Use the sample tool.
      config:
        type: object
      """;

  private final Map<String, String> sources = new LinkedHashMap<>();
  private final Map<String, byte[]> libs = new LinkedHashMap<>();
  private String descriptor = GOOD_DESCRIPTOR;
  private String extensionsIndex = "sample.SampleExtension\n";
  private byte[] padding;

  public TestPackage() {
    sources.put(
        "sample.SamplePlugin",
        "package sample; public class SamplePlugin extends org.pf4j.Plugin {}");
    sources.put(
        "sample.SampleModule",
        "package sample; public class SampleModule extends com.google.inject.AbstractModule {}");
    sources.put(
        "sample.SampleExtension",
        """
        package sample;
        @org.pf4j.Extension
        public class SampleExtension implements dev.periscope.api.browser.spi.BrowserProviderContribution {
          public dev.periscope.api.browser.spi.BrowserProvider provider() { return null; }
        }""");
  }

  public TestPackage descriptor(String yaml) {
    this.descriptor = yaml;
    return this;
  }

  public TestPackage replaceInDescriptor(String from, String to) {
    if (!descriptor.contains(from)) {
      throw new IllegalArgumentException("descriptor has no " + from);
    }
    this.descriptor = descriptor.replace(from, to);
    return this;
  }

  public TestPackage source(String className, String code) {
    sources.put(className, code);
    return this;
  }

  public TestPackage withoutSource(String className) {
    sources.remove(className);
    return this;
  }

  public TestPackage extensionsIndex(String index) {
    this.extensionsIndex = index;
    return this;
  }

  public TestPackage lib(String jarName, Path jarFile) throws IOException {
    libs.put(jarName, Files.readAllBytes(jarFile));
    return this;
  }

  public TestPackage padding(int bytes) {
    this.padding = new byte[bytes];
    new java.util.Random(7).nextBytes(padding);
    return this;
  }

  public String descriptor() {
    return descriptor;
  }

  public Path writeTo(Path file) throws IOException {
    Map<String, byte[]> classes = compile(sources);
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      put(zip, "plugin.yaml", descriptor.getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, byte[]> c : classes.entrySet()) {
        put(zip, "classes/" + c.getKey().replace('.', '/') + ".class", c.getValue());
      }
      if (extensionsIndex != null) {
        put(
            zip,
            "classes/META-INF/extensions.idx",
            extensionsIndex.getBytes(StandardCharsets.UTF_8));
      }
      for (Map.Entry<String, byte[]> lib : libs.entrySet()) {
        put(zip, "lib/" + lib.getKey(), lib.getValue());
      }
      if (padding != null) {
        ZipEntry e = new ZipEntry("lib/padding.bin");
        e.setMethod(ZipEntry.STORED);
        e.setSize(padding.length);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(padding);
        e.setCrc(crc.getValue());
        zip.putNextEntry(e);
        zip.write(padding);
        zip.closeEntry();
      }
    }
    return file;
  }

  private static void put(ZipOutputStream zip, String name, byte[] bytes) throws IOException {
    zip.putNextEntry(new ZipEntry(name));
    zip.write(bytes);
    zip.closeEntry();
  }

  /** Compiles sources in memory against this test's class path (the host API, pf4j, guice). */
  public static Map<String, byte[]> compile(Map<String, String> sources) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    Map<String, ByteArrayOutputStream> out = new LinkedHashMap<>();
    List<JavaFileObject> units = new ArrayList<>();
    sources.forEach(
        (name, code) ->
            units.add(
                new SimpleJavaFileObject(
                    URI.create("string:///" + name.replace('.', '/') + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                  @Override
                  public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return code;
                  }
                }));
    JavaFileManager files =
        new ForwardingJavaFileManager<>(compiler.getStandardFileManager(null, null, null)) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(
                URI.create("mem:///" + className.replace('.', '/') + ".class"), kind) {
              @Override
              public OutputStream openOutputStream() {
                return out.computeIfAbsent(className, k -> new ByteArrayOutputStream());
              }
            };
          }
        };
    List<String> options =
        List.of("-proc:none", "-classpath", System.getProperty("java.class.path"));
    StringBuilderWriter diagnostics = new StringBuilderWriter();
    if (!compiler.getTask(diagnostics, files, null, options, null, units).call()) {
      throw new IllegalStateException("test sources do not compile:\n" + diagnostics);
    }
    Map<String, byte[]> classes = new LinkedHashMap<>();
    out.forEach((k, v) -> classes.put(k, v.toByteArray()));
    return classes;
  }

  private static final class StringBuilderWriter extends java.io.StringWriter {}
}
