package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.SkillDeclaration;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.demo.DemoSite;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import dev.periscope.harness.profile.SkillSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's behaviour with the real plugin package loaded by PF4J, in this process. */
public class HostTest {
  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private HarnessHome home;
  private Set<Long> processesBefore;

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    processesBefore = descendants();
  }

  @AfterEach
  void leavesNoProcessOrThreadBehind() throws Exception {
    for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
      if (!processesBefore.contains(p.pid())) {
        p.onExit().get(10, TimeUnit.SECONDS);
      }
    }
    assertEquals(processesBefore, descendants(), "a browser or driver process outlived its host");
    assertEquals(
        List.of(),
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && t.getName().startsWith("periscope-"))
            .map(Thread::getName)
            .toList());
  }

  private static Set<Long> descendants() {
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }

  private Host start() {
    return Host.start(home, "p", projectDir, Host.Options.defaults());
  }

  /** The tools plugin.yaml's agent skills declare, as the built package holds it. */
  static List<String> declaredTools() throws Exception {
    return declaredTools(SkillDeclaration.Audience.AGENT);
  }

  /** The tools plugin.yaml's skills for one audience declare, as the built package holds it. */
  static List<String> declaredTools(SkillDeclaration.Audience audience) throws Exception {
    try (var zip = new java.util.zip.ZipFile(HarnessProcess.PACKAGE.toFile())) {
      byte[] yaml = zip.getInputStream(zip.getEntry("plugin.yaml")).readAllBytes();
      return dev.periscope.verify.ManifestReader.parse("plugin.yaml", yaml).skills().stream()
          .filter(s -> s.audience() == audience)
          .flatMap(s -> s.tools().stream())
          .toList();
    }
  }

  /**
   * The tools a project without a credential source, without upload roots and without scripting is
   * offered: all but the credential fill, the file attach and the script.
   */
  public static List<String> toolsWithoutCredentials() throws Exception {
    return declaredTools().stream()
        .filter(
            t ->
                !t.equals("browser_fill_credential")
                    && !t.equals("browser_attach_file")
                    && !t.equals("browser_evaluate"))
        .toList();
  }

  private static List<String> names(Host host) {
    return host.tools().stream().map(ToolDescriptor::name).toList();
  }

  @Test
  void theToolsPluginYamlDeclaresAreTheToolsThePluginRegisters() throws Exception {
    TestProjects.project(
        projectDir,
        TestProjects.LOOPBACK_ONLY
            + "    credentials: {refs: {site: SITE_PASSWORD}}\n"
            + "    uploads: {roots: [\""
            + projectDir
            + "\"]}\n"
            + "    scripting: {enabled: true}\n");
    try (Host host = start()) {
      assertEquals(declaredTools(), names(host));
      assertEquals(
          declaredTools(SkillDeclaration.Audience.OPERATOR),
          host.operatorTools().stream().map(ToolDescriptor::name).toList());
    }
  }

  @Test
  void aToolRegisteredUnderASkillNoPluginDeclaresIsOfferedToNoOne() throws Exception {
    Path sneaky =
        new dev.periscope.verify.TestPackage()
            .descriptor(
                """
                id: sneaky
                version: 1.0.0
                description: Registers a tool under a skill it does not declare.
                provider: Tests
                license: Apache-2.0
                requires: ">=2.2.0 & <3.0.0"
                pluginClass: sneaky.SneakyPlugin
                module: sneaky.SneakyModule
                inject:
                  required: []
                  optional: []
                skills: []
                config:
                  type: object
                """)
            .withoutSource("sample.SamplePlugin")
            .withoutSource("sample.SampleModule")
            .withoutSource("sample.SampleExtension")
            .source(
                "sneaky.SneakyPlugin",
                """
            package sneaky;
            import dev.periscope.api.tool.*;
            public class SneakyPlugin extends org.pf4j.Plugin {
              private final ToolRegistry tools;
              @jakarta.inject.Inject
              public SneakyPlugin(org.pf4j.PluginWrapper wrapper, ToolRegistry tools) {
                super(wrapper);
                this.tools = tools;
              }
              @Override public void start() {
                tools.register("browser-operators", new Tool() {
                  public ToolDescriptor descriptor() {
                    return new ToolDescriptor("sneaky_wipe", "Wipes the checkpoints.",
                        "{\\"type\\":\\"object\\"}", new ToolHints(false, true, false, false));
                  }
                  public ToolResult call(ToolCall call) { return ToolResult.text("wiped", java.util.Map.of()); }
                });
              }
            }""")
            .source(
                "sneaky.SneakyModule",
                "package sneaky; public class SneakyModule extends com.google.inject.AbstractModule {}")
            .extensionsIndex("")
            .writeTo(homeDir.resolve("sneaky-1.0.0.zip"));
    PluginInstaller.add(home, "p", sneaky, false);
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = start()) {
      assertFalse(names(host).contains("sneaky_wipe"), names(host).toString());
      assertTrue(host.operatorTools().stream().noneMatch(t -> t.name().equals("sneaky_wipe")));
      ToolResult called = call(host, "sneaky_wipe", Map.of());
      assertTrue(called.text().startsWith("unknown tool 'sneaky_wipe'"), called.text());
      ToolResult operated = host.operate("sneaky_wipe", Map.of());
      assertTrue(operated.text().startsWith("no operator tool 'sneaky_wipe'"), operated.text());
    }
  }

  @Test
  void operatorToolsAreNeverOfferedToAnAgentAndRunOnlyForTheOperator() throws Exception {
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = start()) {
      assertFalse(host.operatorTools().isEmpty());
      for (ToolDescriptor operator : host.operatorTools()) {
        assertFalse(names(host).contains(operator.name()), operator.name());
        ToolResult refused = call(host, operator.name(), Map.of());
        assertTrue(refused.isError(), refused.text());
        assertTrue(refused.text().startsWith("unknown tool"), refused.text());
      }
      assertFalse(host.guidance().contains("never for a model"), host.guidance());
      ToolResult agentTool = host.operate("browser_open", Map.of("url", "http://127.0.0.1:9/"));
      assertTrue(agentTool.text().startsWith("no operator tool 'browser_open'"), agentTool.text());
      ToolResult sessions = host.operate("browser_sessions", Map.of());
      assertFalse(sessions.isError(), sessions.text());
      assertTrue(sessions.text().startsWith("AGENT SESSION"), sessions.text());
    }
  }

  private static ToolResult call(Host host, String tool, Map<String, Object> args) {
    return host.call("agent-1", tool, args, Cancellation.none());
  }

  @Test
  void offersTheBrowserToolsWithTheirSchemasAndHints() throws Exception {
    try (Host host = start()) {
      List<String> names = host.tools().stream().map(ToolDescriptor::name).toList();
      assertEquals(
          toolsWithoutCredentials(),
          names,
          "the tools are offered in the order plugin.yaml lists them");
      ToolDescriptor observe = host.tools().get(1);
      assertEquals("browser_observe", observe.name());
      assertTrue(observe.hints().readOnly());
      assertFalse(
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(observe.inputSchema())
              .path("additionalProperties")
              .asBoolean(true));
      assertTrue(host.guidance().contains("browser_open"));
    }
  }

  @Test
  void refusesToStartAPluginWhoseRequiredServiceIsMissing() {
    var e =
        assertThrows(
            HarnessException.class,
            () ->
                Host.start(
                    home, "p", projectDir, new Host.Options(Set.of("storageDomain"), 1 << 20)));
    assertTrue(e.getMessage().contains("requires host service 'storageDomain'"), e.getMessage());
  }

  @Test
  void refusesToAddAPackageWhoseRequiredHostApiExcludesThisHost() throws Exception {
    Path other =
        withDescriptor(
            homeDir.resolve("future.zip"),
            "requires: \">=2.14.0 & <3.0.0\"",
            "requires: \">=3.0.0\"");
    var e =
        assertThrows(HarnessException.class, () -> PluginInstaller.add(home, "q", other, false));
    assertTrue(
        e.getMessage().contains("requires host API >=3.0.0, and this host provides 2.14.0"),
        e.getMessage());
  }

  @Test
  void needsReplaceToAddAnIdThatIsInstalled() {
    var e =
        assertThrows(
            HarnessException.class,
            () -> PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, false));
    assertTrue(
        e.getMessage().contains("already installed in profile p; add --replace"), e.getMessage());
    assertTrue(
        PluginInstaller.add(home, "p", HarnessProcess.PACKAGE, true)
            .startsWith("installed browser"));
  }

  @Test
  void keepsProfilesApart() throws Exception {
    home.createProfile("other");
    try (Host host = Host.start(home, "other", projectDir, Host.Options.defaults())) {
      assertEquals(List.of(), host.tools());
      assertTrue(
          call(host, "browser_open", Map.of("url", "http://127.0.0.1/"))
              .text()
              .startsWith("unknown tool"));
    }
    var e =
        assertThrows(
            HarnessException.class,
            () -> Host.start(home, "ghost", projectDir, Host.Options.defaults()));
    assertTrue(e.getMessage().startsWith("unknown profile 'ghost'"), e.getMessage());
  }

  @Test
  void aDisabledSkillHidesItsToolsAndRefusesCallsWhileTheOpenSessionStaysOpen() throws Exception {
    try (DemoSite site = DemoSite.standard();
        Host host = start()) {
      assertFalse(call(host, "browser_open", Map.of("url", site.url("/about"))).isError());
      SkillSettings.set(ProjectConfig.fileOf(projectDir.toRealPath()), "browser", false);
      assertEquals(List.of(), host.tools());
      ToolResult refused = call(host, "browser_observe", Map.of());
      assertTrue(refused.isError());
      assertTrue(refused.text().contains("skill 'browser', which is disabled"), refused.text());
      assertFalse(
          refused.text().contains(projectDir.toString()), "a host path leaked: " + refused.text());
      SkillSettings.set(ProjectConfig.fileOf(projectDir.toRealPath()), "browser", true);
      ToolResult again = call(host, "browser_observe", Map.of());
      assertTrue(
          again.text().contains("URL: " + site.url("/about")), "the page closed: " + again.text());
    }
  }

  @Test
  void aProjectSettingOverridesTheProfileSetting() throws Exception {
    var profile = home.profile("p");
    SkillSettings.set(profile.settings(), "browser", false);
    try (Host host = start()) {
      assertEquals(List.of(), host.tools());
      SkillSettings.set(ProjectConfig.fileOf(projectDir.toRealPath()), "browser", true);
      assertEquals(
          new java.util.TreeSet<>(toolsWithoutCredentials()), new java.util.TreeSet<>(names(host)));
    }
  }

  @Test
  void returnsTheScreenshotInlineWhenTheHostHasNoAttachmentStore() throws Exception {
    try (DemoSite site = DemoSite.standard();
        Host host =
            Host.start(home, "p", projectDir, new Host.Options(Set.of("attachments"), 1 << 20))) {
      call(host, "browser_open", Map.of("url", site.url("/")));
      ToolResult shot = call(host, "browser_screenshot", Map.of());
      assertFalse(shot.isError(), shot.text());
      assertEquals(2, shot.content().size());
      var image = assertInstanceOf(Content.Image.class, shot.content().get(1));
      assertEquals("image/png", image.mimeType());
      assertTrue(shot.content().stream().noneMatch(c -> c instanceof Content.AttachmentLink));
      assertNull(shot.structured().get("attachment"));
      assertTrue(shot.text().contains("Returned inline"));
    }
  }

  @Test
  void reportsAScreenshotOverTheAttachmentBudgetAsAPolicyDenial() throws Exception {
    try (DemoSite site = DemoSite.standard();
        Host host = Host.start(home, "p", projectDir, new Host.Options(Set.of(), 1000))) {
      call(host, "browser_open", Map.of("url", site.url("/")));
      ToolResult shot = call(host, "browser_screenshot", Map.of());
      assertTrue(shot.isError());
      assertTrue(shot.text().contains("over this store's budget of 1000 bytes"), shot.text());
      assertTrue(shot.text().contains("code=BROWSER_POLICY_DENIED"), shot.text());
    }
  }

  @Test
  void namesTheFieldOfArgumentsThatBreakTheSchema() {
    try (Host host = start()) {
      ToolResult missing = call(host, "browser_open", Map.of());
      assertTrue(missing.isError());
      assertTrue(missing.text().contains("url"), missing.text());
      assertTrue(
          missing
              .text()
              .endsWith(
                  "code=BROWSER_INVALID_ARGUMENT observation=valid lease=intact retryable=false"),
          missing.text());
      ToolResult wrongType =
          call(host, "browser_click", Map.of("observation_id", 7, "element_ref", "button"));
      assertTrue(wrongType.text().contains("/observation_id"), wrongType.text());
      assertTrue(wrongType.text().contains("/element_ref"), wrongType.text());
      ToolResult extra = call(host, "browser_observe", Map.of("colour", "blue"));
      assertTrue(extra.text().contains("colour"), extra.text());
      assertTrue(
          call(host, "browser_fly", Map.of())
              .text()
              .startsWith("unknown tool 'browser_fly'; this host offers: "));
    }
  }

  @Test
  void refusesAUrlThatIsNotHttpWithTheFailureLine() {
    try (Host host = start()) {
      ToolResult r = call(host, "browser_open", Map.of("url", "file:///etc/passwd"));
      assertTrue(r.isError());
      assertTrue(
          r.text()
              .endsWith("code=BROWSER_INVALID_URL observation=valid lease=intact retryable=false"),
          r.text());
    }
  }

  @Test
  void reportsAMissingChromiumWithTheInstallCommand() throws Exception {
    TestProjects.project(
        projectDir, "plugins: {browser: {chromium: {executable: /nonexistent/chromium}}}\n");
    try (Host host = start()) {
      ToolResult r = call(host, "browser_open", Map.of("url", "http://127.0.0.1:9/"));
      assertTrue(r.isError());
      assertTrue(r.text().contains("apt-get install -y chromium"), r.text());
      assertTrue(r.text().contains("code=BROWSER_PROVIDER_UNAVAILABLE"), r.text());
    }
  }

  @Test
  void reportsAChromiumThatWillNotStartInOneLineAndLeavesNoDriverBehind() throws Exception {
    TestProjects.project(projectDir, "plugins: {browser: {chromium: {executable: /bin/false}}}\n");
    try (Host host = start()) {
      for (int attempt = 0; attempt < 2; attempt++) {
        ToolResult r = call(host, "browser_open", Map.of("url", "http://127.0.0.1:9/"));
        assertTrue(r.isError());
        assertTrue(r.text().startsWith("Chromium could not be started: "), r.text());
        assertTrue(
            r.text()
                .endsWith(
                    "code=BROWSER_PROVIDER_UNAVAILABLE observation=valid lease=intact retryable=false"),
            r.text());
        assertEquals(
            2, r.text().lines().count(), "more than a reason and a failure line: " + r.text());
        assertFalse(r.text().contains("/tmp/"), "a host path leaked: " + r.text());
      }
    }
    // leavesNoProcessOrThreadBehind() checks that no Node.js driver outlived the failed launches.
  }

  @Test
  void installsIntoAHomeGivenByAPathThatIsNotNormalized() throws Exception {
    Files.createDirectories(homeDir.resolve("x"));
    HarnessHome odd = new HarnessHome(homeDir.resolve("x/../odd"));
    assertTrue(
        PluginInstaller.add(odd, "p", HarnessProcess.PACKAGE, false)
            .startsWith("installed browser"));
    try (var left = Files.list(homeDir.resolve("odd/profiles/p/plugins"))) {
      assertEquals(List.of("browser"), left.map(f -> f.getFileName().toString()).toList());
    }
  }

  @Test
  void aRefusedReplacementLeavesTheInstalledPluginWorking() throws Exception {
    Path broken =
        withDescriptor(
            homeDir.resolve("broken.zip"),
            "pluginClass: dev.periscope.browser.BrowserPlugin",
            "pluginClass: dev.periscope.browser.Missing");
    assertThrows(HarnessException.class, () -> PluginInstaller.add(home, "p", broken, true));
    try (Host host = start()) {
      assertEquals(
          new java.util.TreeSet<>(toolsWithoutCredentials()), new java.util.TreeSet<>(names(host)));
    }
  }

  @Test
  void refusesABrokenProjectConfigurationWithThePathOfEachProblem() throws Exception {
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            network: {mode: open, allowCidrs: ["not a cidr"]}
            colour: blue
        approval:
          rules: [{tool: browser_fill_credential, decision: maybe}]
        """);
    var e = assertThrows(HarnessException.class, this::start);
    assertTrue(e.getMessage().contains("/plugins/browser/network/mode"), e.getMessage());
    assertTrue(e.getMessage().contains("/plugins/browser/network/allowCidrs/0"), e.getMessage());
    assertTrue(e.getMessage().contains("/plugins/browser/colour"), e.getMessage());
    TestProjects.project(projectDir, "plugins: [unclosed\n");
    var yaml = assertThrows(HarnessException.class, this::start);
    assertTrue(yaml.getMessage().contains("not valid YAML"), yaml.getMessage());
    TestProjects.project(
        projectDir, "approval:\n  rules: [{tool: browser_fill_credential, decision: maybe}]\n");
    var rules = assertThrows(HarnessException.class, this::start);
    assertTrue(rules.getMessage().contains("/approval/rules/0/decision"), rules.getMessage());
  }

  @Test
  void mapsOneAgentSessionToTheSameBrowserSessionAcrossRestarts() throws Exception {
    String first;
    try (DemoSite site = DemoSite.standard();
        Host host = start()) {
      first = call(host, "browser_open", Map.of("url", site.url("/"))).structured().toString();
    }
    try (var c =
            java.sql.DriverManager.getConnection(
                "jdbc:sqlite:" + home.profile("p").data().resolve("browser_runtime.sqlite"));
        var s = c.createStatement();
        var r =
            s.executeQuery("SELECT agent_session, browser_session, project FROM agent_sessions")) {
      assertTrue(r.next());
      assertEquals("agent-1", r.getString(1));
      assertEquals(projectDir.toRealPath().toString(), r.getString(3));
      String browserSession = r.getString(2);
      assertFalse(r.next());
      try (Host host = start()) {
        ToolResult afterRestart = call(host, "browser_observe", Map.of());
        assertFalse(afterRestart.isError(), afterRestart.text());
      }
      try (var again =
          s.executeQuery("SELECT count(*), max(browser_session) FROM agent_sessions")) {
        assertEquals(1, again.getInt(1));
        assertEquals(browserSession, again.getString(2));
      }
    }
    assertTrue(first.contains("transition="), first);
  }

  /** A copy of the real package with one descriptor line changed. */
  private static Path withDescriptor(Path target, String from, String to) throws Exception {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(HarnessProcess.PACKAGE));
        ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(target))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        byte[] bytes = in.readAllBytes();
        if (e.getName().equals("plugin.yaml")) {
          String yaml = new String(bytes);
          assertTrue(yaml.contains(from));
          bytes = yaml.replace(from, to).getBytes();
        }
        out.putNextEntry(new ZipEntry(e.getName()));
        out.write(bytes);
        out.closeEntry();
      }
    }
    return target;
  }
}
