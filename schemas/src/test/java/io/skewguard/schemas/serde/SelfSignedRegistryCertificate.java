package io.skewguard.schemas.serde;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed certificate for 127.0.0.1, made with the running JDK's own {@code keytool}, standing
 * for a registry certificate issued by a private CA: the server's key store, and truststores of its
 * certificate in both formats the serde reads.
 */
final class SelfSignedRegistryCertificate {

  static final String SERVER_PASSWORD = "server-secret";
  static final String TRUST_PASSWORD = "trust-secret";

  private final Path serverKeyStore;
  private final Path jksTruststore;
  private final Path pkcs12Truststore;

  private SelfSignedRegistryCertificate(Path dir) {
    this.serverKeyStore = dir.resolve("registry.p12");
    this.jksTruststore = dir.resolve("truststore.jks");
    this.pkcs12Truststore = dir.resolve("truststore.p12");
  }

  /** Generates the certificate and its stores in {@code dir}. */
  static SelfSignedRegistryCertificate generate(Path dir) throws IOException, InterruptedException {
    SelfSignedRegistryCertificate certificate = new SelfSignedRegistryCertificate(dir);
    Path pem = dir.resolve("registry.pem");
    keytool("-genkeypair", "-alias", "registry", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=127.0.0.1, O=SkewGuard test CA", "-ext", "SAN=ip:127.0.0.1", "-validity", "2",
        "-keystore", certificate.serverKeyStore.toString(), "-storetype", "PKCS12",
        "-storepass", SERVER_PASSWORD, "-keypass", SERVER_PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "registry", "-file", pem.toString(),
        "-keystore", certificate.serverKeyStore.toString(), "-storetype", "PKCS12", "-storepass", SERVER_PASSWORD);
    keytool("-importcert", "-noprompt", "-alias", "registry-ca", "-file", pem.toString(),
        "-keystore", certificate.jksTruststore.toString(), "-storetype", "JKS", "-storepass", TRUST_PASSWORD);
    keytool("-importcert", "-noprompt", "-alias", "registry-ca", "-file", pem.toString(),
        "-keystore", certificate.pkcs12Truststore.toString(), "-storetype", "PKCS12", "-storepass", TRUST_PASSWORD);
    return certificate;
  }

  Path jksTruststore() {
    return jksTruststore;
  }

  Path pkcs12Truststore() {
    return pkcs12Truststore;
  }

  /** The server side: presents the certificate. */
  SSLContext serverContext() throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(serverKeyStore)) {
      store.load(in, SERVER_PASSWORD.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, SERVER_PASSWORD.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("keytool did not finish: " + command);
    }
    if (process.exitValue() != 0) {
      throw new IOException("keytool failed (" + process.exitValue() + "): " + command + "\n" + output);
    }
  }
}
