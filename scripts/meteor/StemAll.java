import java.io.*;
import org.tartarus.snowball.ext.englishStemmer;
// Reads one word per line (UTF-8) on stdin, prints "word<TAB>stem" with METEOR's bundled Snowball English.
public class StemAll {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        englishStemmer s = new englishStemmer();
        String w;
        while ((w = in.readLine()) != null) {
            s.setCurrent(w); s.stem();
            out.print(w); out.print('\t'); out.print(s.getCurrent()); out.print('\n');
        }
        out.flush();
    }
}
