package dev.periscope.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.verify.TestPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second plugin, built by this test as a real package, contributes a browser provider through the extension
 * point; the host loads both with PF4J, the project selects the contributed provider by configuration, and
 * stopping that plugin closes the environments it opened.
 */
class ContributedProviderTest {
  static final String DESCRIPTOR = """
      id: stub-browser
      version: 1.0.0
      description: A browser provider that needs no browser.
      provider: Tests
      license: Apache-2.0
      requires: ">=1.0.0 & <2.0.0"
      pluginClass: stub.StubPlugin
      module: stub.StubModule
      dependencies: [browser]
      inject:
        required: []
        optional: []
      skills: []
      config:
        type: object
      """;

  static final String PROVIDER = """
      package stub;

      import dev.periscope.api.Cancellation;
      import dev.periscope.api.browser.*;
      import java.nio.file.*;
      import java.util.*;

      public class StubProvider implements BrowserProvider {
        static void log(String line) {
          try {
            Files.writeString(Path.of(System.getProperty("stub.provider.log")), line + "\\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }

        public String id() { return "stub"; }
        public Set<Capability> capabilities() { return Set.of(Capability.SCREENSHOT); }
        public boolean available() { return true; }
        public Optional<String> unavailableReason() { return Optional.empty(); }
        public void dispose() { log("disposed"); }

        public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
          log("opened " + request.sessionId());
          return new BrowserEnvironment() {
            String url = "about:blank";
            public ProviderObservation observe(ObservationBudget budget) {
              return new ProviderObservation(url, "Stub page", "served by the stub", 18,
                  List.of(new ProviderElement("0", "stub-button", "button", "button", "Stub button", false, null, 1)), 1);
            }
            public void navigate(String u) { url = u; }
            public void click(ProviderElement element) { log("clicked " + element.name()); }
            public void fill(ProviderElement element, String value) {}
            public void press(ProviderElement element, String key) {}
            public void select(ProviderElement element, List<String> values) {}
            public void check(ProviderElement element, boolean checked) {}
            public void scroll(String to, double pages, ProviderElement element) {}
            public void waitFor(String until, ProviderElement element, long timeoutMs) {}
            public void history(String move) {}
            public Screenshot screenshot(boolean fullPage) { throw new IllegalStateException("no pixels here"); }
            public void abort() {}
            public void close() { log("closed"); }
          };
        }
      }
      """;

  @TempDir Path homeDir;
  @TempDir Path projectDir;
  @TempDir Path work;
  private HarnessHome home;
  private Path log;

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, false);
    Path stub = new TestPackage().descriptor(DESCRIPTOR)
        .withoutSource("sample.SamplePlugin").withoutSource("sample.SampleModule").withoutSource("sample.SampleExtension")
        .source("stub.StubPlugin", """
            package stub;
            public class StubPlugin extends org.pf4j.Plugin {
              @jakarta.inject.Inject public StubPlugin(org.pf4j.PluginWrapper wrapper) { super(wrapper); }
            }""")
        .source("stub.StubModule", "package stub; public class StubModule extends com.google.inject.AbstractModule {}")
        .source("stub.StubProvider", PROVIDER)
        .source("stub.StubContribution", """
            package stub;
            @org.pf4j.Extension
            public class StubContribution implements dev.periscope.api.browser.BrowserProviderContribution {
              private static final StubProvider PROVIDER = new StubProvider();
              public dev.periscope.api.browser.BrowserProvider provider() { return PROVIDER; }
            }""")
        .extensionsIndex("stub.StubContribution\n")
        .writeTo(work.resolve("stub-browser-1.0.0.zip"));
    PluginInstaller.add(home, "p", stub, false);
    log = work.resolve("stub.log");
    System.setProperty("stub.provider.log", log.toString());
  }

  @AfterEach
  void forget() {
    System.clearProperty("stub.provider.log");
  }

  private List<String> logged() throws Exception {
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  @Test
  void theProjectSelectsTheContributedProviderAndStoppingItsPluginClosesItsEnvironments() throws Exception {
    TestProjects.project(projectDir, "plugins: {browser: {provider: stub}}\n");
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult opened = host.call("agent", "browser_open", Map.of("url", "http://127.0.0.1:9/stub"), Cancellation.none());
      assertFalse(opened.isError(), opened.text());
      assertTrue(opened.text().contains("[e1] button — Stub button"), opened.text());
      assertTrue(logged().get(0).startsWith("opened session-"), logged().toString());

      host.stopPlugin("stub-browser");
      assertEquals(List.of("closed", "disposed"), logged().subList(1, logged().size()));
      ToolResult after = host.call("agent", "browser_observe", Map.of(), Cancellation.none());
      assertTrue(after.isError());
      assertTrue(after.text().contains("code=BROWSER_PROVIDER_CONFIGURED_MISSING"), after.text());
    }
  }

  @Test
  void stoppingTheBrowserPluginAlsoWithdrawsTheContributedProvider() throws Exception {
    TestProjects.project(projectDir, "plugins: {browser: {provider: stub}}\n");
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      assertFalse(host.call("agent", "browser_observe", Map.of(), Cancellation.none()).isError());
      host.stopPlugin("browser");
      assertEquals(List.of("closed", "disposed"), logged().subList(1, logged().size()));
      assertTrue(host.tools().isEmpty(), "the stopped plugin's tools are still offered");
    }
  }

  @Test
  void twoAvailableProvidersWithoutAConfiguredOneAreAmbiguous() throws Exception {
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult r = host.call("agent", "browser_observe", Map.of(), Cancellation.none());
      assertTrue(r.isError());
      assertTrue(r.text().contains("multiple browser providers are available: playwright, stub"), r.text());
      assertTrue(r.text().contains("code=BROWSER_PROVIDER_AMBIGUOUS"), r.text());
    }
    assertTrue(logged().isEmpty() || logged().equals(List.of("disposed")), logged().toString());
  }
}
