import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.tartarus.snowball.SnowballStemmer;

/**
 * Stems the words of standard input, one a line, with the Snowball stemmer Lucene's
 * SnowballFilter uses for the language named by the argument ("French" runs
 * org.tartarus.snowball.ext.FrenchStemmer), and prints one stem a line. Run in Java's
 * single-file mode with an engine's lucene-analysis-common jar on the class path
 * (test/integration/stems-lucene.test.ts).
 */
public class Stem {
  public static void main(String[] args) throws Exception {
    SnowballStemmer stemmer = (SnowballStemmer) Class
        .forName("org.tartarus.snowball.ext." + args[0] + "Stemmer")
        .getDeclaredConstructor()
        .newInstance();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      stemmer.setCurrent(line);
      stemmer.stem();
      out.println(stemmer.getCurrent());
    }
    out.flush();
  }
}
