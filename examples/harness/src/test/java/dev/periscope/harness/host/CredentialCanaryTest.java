package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential canary: a random secret goes through the whole harness (encrypted store, approval
 * rule, fills into a password and a text field, a page that echoes it, observations, an extraction,
 * screenshots, a fill that times out, checkpoints), with debug logging on and every temp directory
 * inside HARNESS_HOME. Then every file under HARNESS_HOME, standard output and error and every tool
 * result are searched for it, as text and in the forms a leak would take. It is found nowhere, yet
 * the site received it.
 */
public class CredentialCanaryTest {
  /**
   * The random core a leak would carry; the secret around it has characters URLs and JSON encode.
   */
  static final String CORE = HexFormat.of().formatHex(new SecureRandom().generateSeed(10));

  public static final String SECRET = "Cy" + CORE + "-p@ss w/rd!";

  /** The mask colour the plugin paints over filled fields. */
  static final int MASK = 0xFF202020;

  static HttpServer site;
  static final List<String> posted = new CopyOnWriteArrayList<>();

  /**
   * {@code /hold} keeps the last step waiting until the test has searched the running browser's
   * files.
   */
  static volatile java.util.concurrent.CountDownLatch holding;

  static volatile java.util.concurrent.CountDownLatch released;
  @TempDir Path home;
  @TempDir Path other;
  @TempDir Path project;
  @TempDir Path otherTmp;

  public static final String LOGIN =
      """
      <!doctype html><html><head><title>Canary bank</title>
      <style>input { position: absolute; left: 20px; width: 400px; height: 32px; font-size: 20px; }</style></head>
      <body><form method="post" action="/session">
        <label for="user">Username</label><input id="user" name="user" style="top: 80px">
        <label for="pw">Password</label><input id="pw" name="pw" type="password" style="top: 140px">
        <label for="locked">Locked</label><input id="locked" disabled style="top: 200px">
        <button type="submit" style="position: absolute; top: 260px">Sign in</button>
      </form>
      <button style="position: absolute; top: 300px"
        onclick="document.getElementById('out').textContent = 'lengths ' + user.value.length + ' ' + pw.value.length">Show lengths</button>
      <p id="out" style="position: absolute; top: 330px"></p><div style="height: 1600px"></div></body></html>""";

  @BeforeAll
  static void startSite() throws IOException {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext("/login", e -> respond(e, LOGIN, null));
    site.createContext(
        "/session",
        e -> {
          String body = new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          posted.add(body);
          String user = "";
          for (String pair : body.split("&")) {
            if (pair.startsWith("user=")) {
              user = URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
            }
          }
          // The page echoes the username once: the secret, since that is what was filled into it.
          respond(
              e,
              "<!doctype html><html><head><title>Accounts</title></head><body><h1>Signed in</h1>"
                  + "<p>Welcome back, "
                  + user.replace("<", "&lt;")
                  + "</p>"
                  + "<ul><li>Checking account</li><li>Savings account</li><li>Credit card</li></ul></body></html>",
              "sid="
                  + HexFormat.of().formatHex(new SecureRandom().generateSeed(8))
                  + "; Path=/; HttpOnly");
        });
    site.createContext(
        "/hold",
        e -> {
          holding.countDown();
          try {
            released.await(120, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
          respond(e, "<!doctype html><html><body>released</body></html>", null);
        });
    site.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    site.start();
  }

  @BeforeEach
  void freshRun() {
    posted.clear();
    holding = new java.util.concurrent.CountDownLatch(1);
    released = new java.util.concurrent.CountDownLatch(1);
  }

  @AfterAll
  static void stopSite() {
    site.stop(0);
  }

  public static void respond(HttpExchange e, String html, String cookie) throws IOException {
    byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    if (cookie != null) {
      e.getResponseHeaders().set("Set-Cookie", cookie);
    }
    e.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(bytes);
    }
  }

  static String url(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  private void projectWith(String decision) throws IOException {
    TestProjects.project(
        project,
        """
        credentials:
          canary: {store: canary, origins: ["%s"]}
        approval:
          rules:
            - {tool: browser_fill_credential, credential: canary, decision: %s}
        plugins:
          browser:
            actionTimeoutMs: 1500
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
        """
            .formatted(url(""), decision));
  }

  private HarnessProcess.Result harness(Path at, Path tmp, byte[] input, String... args)
      throws Exception {
    // Debug logging everywhere it can be switched on: the harness's, and Playwright's in the
    // driver.
    return HarnessProcess.run(
        at,
        tmp,
        input,
        Map.of("HARNESS_LOG", "debug", "DEBUG", "pw:api,pw:protocol,pw:browser"),
        args);
  }

  private void install(Path at, Path tmp) throws Exception {
    InstalledProfiles.install(at, "p");
    var set =
        harness(
            at,
            tmp,
            (SECRET + "\n").getBytes(StandardCharsets.UTF_8),
            "credentials",
            "set",
            "--profile",
            "p",
            "canary");
    assertEquals(0, set.exitCode(), set.err());
  }

  private Path script(String name, String steps) throws IOException {
    return Files.writeString(project.resolve(name + ".yaml"), "steps:\n" + steps);
  }

  @Test
  void theSecretIsFoundNowhereAfterAWholeRunThatUsedIt() throws Exception {
    Path tmp = Files.createDirectories(home.resolve("tmp"));
    install(home, tmp);
    projectWith("allow");
    Path run =
        script(
            "canary",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_fill_credential, args: {target: {name: Username}, credential_ref: canary}}
          - {tool: browser_fill_credential, args: {target: {name: Password}, credential_ref: canary}}
          - {tool: browser_observe, args: {mode: document}}
          - {tool: browser_screenshot, args: {}}
          - {tool: browser_screenshot, args: {full_page: true}}
          - {tool: browser_fill_credential, args: {target: {name: Locked}, credential_ref: canary}, expect: error}
          - {tool: browser_observe, args: {}}
          - {tool: browser_click, args: {target: {name: Sign in}}}
          - {tool: browser_observe, args: {mode: document}}
          - {tool: browser_extract_article, args: {}}
          - {tool: browser_extract_list, args: {}}
          - {tool: browser_open, args: {url: "%s"}}
        """
                .formatted(url("/login"), url("/hold")));
    Held held = runHolding(tmp, run, "canary-agent");
    var result = held.result();
    List<String> leaks = new ArrayList<>(held.leaks());
    List<Path> live = held.live();
    long liveBytes = held.liveBytes();

    // The fills happened: the site got the secret in both fields, and the model saw lengths and
    // redactions.
    assertEquals(1, posted.size());
    assertTrue(
        URLDecoder.decode(posted.get(0), StandardCharsets.UTF_8)
            .equals("user=" + SECRET + "&pw=" + SECRET),
        "the site received what was filled");
    assertTrue(
        result
            .out()
            .contains("Filled " + SECRET.length() + " characters of credential \\\"canary\\\""),
        result.out());
    assertTrue(result.out().contains("did not become editable within 1500 ms"), result.out());
    assertTrue(result.out().contains("Welcome back, [REDACTED:canary]"), result.out());
    assertTrue(result.err().contains("DEBUG"), "debug logging was on");

    // A checkpoint was written (the session cookie), and the attachments are there to be searched.
    List<Path> files = everyFile(home);
    assertTrue(
        files.stream().anyMatch(f -> f.toString().contains("/checkpoints/")), files.toString());
    assertEquals(
        2, files.stream().filter(f -> f.toString().endsWith(".png")).count(), files.toString());

    for (Path f : files) {
      leaks.addAll(search(f.toString(), Files.readAllBytes(f)));
    }
    leaks.addAll(search("standard output", result.out().getBytes(StandardCharsets.UTF_8)));
    leaks.addAll(search("standard error", result.err().getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of(), leaks, "the secret leaked");
    System.out.printf(
        "credential canary: searched %d files of the running browser (%d bytes), %d files after the"
            + " stop (%d bytes) and %d bytes of output, in %d forms: no copy%n",
        live.size(),
        liveBytes,
        files.size(),
        files.stream().mapToLong(CredentialCanaryTest::size).sum(),
        result.out().length() + result.err().length(),
        forms().size());

    // The viewport screenshot covers the text field that holds the secret with the mask.
    BufferedImage viewport = null;
    for (Path f : files) {
      if (f.toString().endsWith(".png")) {
        BufferedImage image = ImageIO.read(f.toFile());
        if (image.getHeight() == 720) {
          viewport = image;
        }
      }
    }
    assertTrue(viewport != null, "a 1280x720 viewport screenshot");
    List<Integer> masked = fieldPixels(viewport);
    assertTrue(masked.stream().allMatch(p -> p == MASK), "the filled text field is masked");

    // The same field with the same value typed in plainly, elsewhere: its pixels differ from the
    // masked ones.
    Path otherTmpDir = Files.createDirectories(other.resolve("tmp"));
    install(other, otherTmpDir);
    Path plain =
        script(
            "plain",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_fill, args: {target: {name: Username}, value: "%s"}}
          - {tool: browser_screenshot, args: {}}
        """
                .formatted(url("/login"), SECRET));
    var shown =
        harness(
            other,
            otherTmpDir,
            null,
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "plain",
            plain.toString());
    assertEquals(0, shown.exitCode(), shown.out() + shown.err());
    Path png =
        everyFile(other).stream()
            .filter(f -> f.toString().endsWith(".png"))
            .findFirst()
            .orElseThrow();
    List<Integer> unmasked = fieldPixels(ImageIO.read(png.toFile()));
    assertFalse(unmasked.equals(masked), "the mask hides what the unmasked field shows");
    assertTrue(new HashSet<>(unmasked).size() > 2, "the unmasked field shows typed text");
  }

  /** A run, the files of its running browser, and what the search found in them. */
  record Held(HarnessProcess.Result result, List<Path> live, long liveBytes, List<String> leaks) {}

  /**
   * Runs {@code script} (whose last step opens {@code /hold}) as {@code agent}; while that step
   * waits, the browser is running: its profile, the driver's files and Chromium's temp files are
   * all under HARNESS_HOME/tmp, and searched as they are.
   */
  private Held runHolding(Path tmp, Path script, String agent) throws Exception {
    var running =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return harness(
                    home,
                    tmp,
                    null,
                    "run",
                    "--profile",
                    "p",
                    "--project",
                    project.toString(),
                    "--session",
                    agent,
                    "--json",
                    script.toString());
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    List<String> leaks = new ArrayList<>();
    List<Path> live;
    long liveBytes = 0;
    try {
      assertTrue(
          holding.await(180, java.util.concurrent.TimeUnit.SECONDS),
          "the run reached its last step");
      live = everyFile(tmp);
      for (Path f : live) {
        byte[] bytes = readIfStillThere(f);
        liveBytes += bytes.length;
        leaks.addAll(search(f.toString() + " (while running)", bytes));
      }
    } finally {
      released.countDown();
    }
    var result = running.get(180, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(0, result.exitCode(), result.out() + result.err());
    assertTrue(
        live.stream().anyMatch(f -> f.toString().contains("Default")),
        "Chromium's profile was searched: " + live);
    return new Held(result, live, liveBytes, leaks);
  }

  @Test
  void aPasswordTheUserGaveIsFoundNowhereAfterAWholeRunThatTypedIt() throws Exception {
    Path tmp = Files.createDirectories(home.resolve("tmp"));
    install(home, tmp);
    TestProjects.project(
        project,
        """
        plugins:
          browser:
            actionTimeoutMs: 1500
            credentials: {modelTypedPasswords: allow}
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
        """);
    // The script stands in for the user's instruction: it lives in the project, not under
    // HARNESS_HOME, and travels only as the tool calls' input.
    Path run =
        script(
            "typed",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_fill, args: {target: {name: Username}, value: "alice"}}
          - {tool: browser_fill, args: {target: {name: Password}, value: "%s"}}
          - {tool: browser_observe, args: {mode: document}}
          - {tool: browser_screenshot, args: {}}
          - {tool: browser_screenshot, args: {full_page: true}}
          - {tool: browser_click, args: {target: {name: Show lengths}}}
          - {tool: browser_click, args: {target: {name: Sign in}}}
          - {tool: browser_extract_article, args: {}}
          - {tool: browser_open, args: {url: "%s"}}
        """
                .formatted(url("/login"), SECRET, url("/hold")));
    Held held = runHolding(tmp, run, "typed-agent");
    var result = held.result();
    assertEquals(1, posted.size());
    assertEquals(
        "user=alice&pw=" + SECRET,
        URLDecoder.decode(posted.get(0), StandardCharsets.UTF_8),
        "the site received what was typed");
    assertTrue(
        result.out().contains("lengths 5 " + SECRET.length()),
        "the field held it: " + result.out());
    assertTrue(result.out().contains("Password (filled)"), result.out());
    assertTrue(result.err().contains("DEBUG"), "debug logging was on");

    List<String> leaks = new ArrayList<>(held.leaks());
    List<Path> files = everyFile(home);
    assertTrue(
        files.stream().anyMatch(f -> f.toString().contains("/checkpoints/")), files.toString());
    for (Path f : files) {
      leaks.addAll(search(f.toString(), Files.readAllBytes(f)));
    }
    leaks.addAll(search("standard output", result.out().getBytes(StandardCharsets.UTF_8)));
    leaks.addAll(search("standard error", result.err().getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of(), leaks, "the typed password leaked");

    // The viewport screenshot covers the password field (20..420 x 140..172) with the mask.
    BufferedImage viewport = null;
    for (Path f : files) {
      if (f.toString().endsWith(".png")) {
        BufferedImage image = ImageIO.read(f.toFile());
        if (image.getHeight() == 720) {
          viewport = image;
        }
      }
    }
    assertTrue(viewport != null, "a 1280x720 viewport screenshot");
    for (int x = 24; x < 416; x += 2) {
      for (int y = 144; y < 168; y += 2) {
        assertEquals(MASK, viewport.getRGB(x, y), "pixel " + x + "," + y + " of the password");
      }
    }
    System.out.printf(
        "typed-password canary: searched %d files of the running browser (%d bytes), %d files after"
            + " the stop and %d bytes of output: no copy%n",
        held.live().size(),
        held.liveBytes(),
        files.size(),
        result.out().length() + result.err().length());
  }

  @Test
  void aDeniedFillLeavesTheFieldEmpty() throws Exception {
    Path tmp = Files.createDirectories(home.resolve("tmp"));
    install(home, tmp);
    projectWith("deny");
    Path run =
        script(
            "denied",
            """
          - {tool: browser_open, args: {url: "%s"}}
          - {tool: browser_fill_credential, args: {target: {name: Password}, credential_ref: canary}, expect: error}
          - {tool: browser_fill_credential, args: {target: {name: Username}, credential_ref: canary}, expect: error}
          - {tool: browser_click, args: {target: {name: Show lengths}}}
        """
                .formatted(url("/login")));
    var result =
        harness(
            home,
            tmp,
            null,
            "run",
            "--profile",
            "p",
            "--project",
            project.toString(),
            "--session",
            "denied-agent",
            run.toString());
    assertEquals(0, result.exitCode(), result.out() + result.err());
    assertEquals(
        2, result.out().split("code=BROWSER_CREDENTIAL_DENIED", -1).length - 1, result.out());
    assertTrue(result.out().contains("lengths 0 0"), result.out());
    List<String> leaks = new ArrayList<>();
    for (Path f : everyFile(home)) {
      leaks.addAll(search(f.toString(), Files.readAllBytes(f)));
    }
    leaks.addAll(search("standard output", result.out().getBytes(StandardCharsets.UTF_8)));
    leaks.addAll(search("standard error", result.err().getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of(), leaks);
  }

  @Test
  void theSearchFindsTheSecretInEveryFormItLooksFor() {
    for (Map.Entry<String, byte[]> form : forms().entrySet()) {
      byte[] haystack =
          ("prefix " + new String(form.getValue(), StandardCharsets.ISO_8859_1) + " suffix")
              .getBytes(StandardCharsets.ISO_8859_1);
      assertFalse(search("test", haystack).isEmpty(), form.getKey());
    }
    byte[] secretInUtf16 = ("x" + SECRET).getBytes(StandardCharsets.UTF_16LE);
    assertFalse(search("utf16", secretInUtf16).isEmpty());
    for (int shift = 0; shift < 3; shift++) {
      byte[] encoded =
          Base64.getEncoder()
              .encode(("ab".substring(0, shift) + SECRET).getBytes(StandardCharsets.UTF_8));
      assertFalse(search("base64 at " + shift, encoded).isEmpty(), "base64 at offset " + shift);
    }
    assertTrue(search("clean", "nothing to see".getBytes(StandardCharsets.UTF_8)).isEmpty());
  }

  /**
   * The core as a leak would carry it: UTF-8 (also URL- and JSON-encoded), UTF-16 both ways, base64
   * at every offset.
   */
  static Map<String, byte[]> forms() {
    Map<String, byte[]> forms = new java.util.LinkedHashMap<>();
    forms.put("text", CORE.getBytes(StandardCharsets.UTF_8));
    forms.put("UTF-16LE", CORE.getBytes(StandardCharsets.UTF_16LE));
    forms.put("UTF-16BE", CORE.getBytes(StandardCharsets.UTF_16BE));
    for (int shift = 0; shift < 3; shift++) {
      String encoded =
          Base64.getEncoder()
              .encodeToString(("ab".substring(0, shift) + CORE).getBytes(StandardCharsets.UTF_8));
      // The groups that mix in the neighbours' bytes differ by context: only the middle is certain.
      forms.put(
          "base64+" + shift,
          encoded.substring(4, encoded.length() - 4).getBytes(StandardCharsets.US_ASCII));
    }
    return forms;
  }

  public static List<String> search(String where, byte[] bytes) {
    List<String> found = new ArrayList<>();
    for (Map.Entry<String, byte[]> form : forms().entrySet()) {
      if (indexOf(bytes, form.getValue()) >= 0) {
        found.add(form.getKey() + " in " + where);
      }
    }
    return found;
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  public static List<Path> everyFile(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).toList();
    }
  }

  /**
   * A running browser deletes files as it goes: one gone since the walk has nothing left to leak.
   */
  static byte[] readIfStillThere(Path f) {
    try {
      return Files.readAllBytes(f);
    } catch (IOException gone) {
      return new byte[0];
    }
  }

  static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The Username field's inside (CSS box 20..420 x 80..112 at device ratio 1), a few pixels in from
   * its border.
   */
  static List<Integer> fieldPixels(BufferedImage image) {
    List<Integer> pixels = new ArrayList<>();
    for (int x = 24; x < 416; x += 2) {
      for (int y = 84; y < 108; y += 2) {
        pixels.add(image.getRGB(x, y));
      }
    }
    return pixels;
  }
}
