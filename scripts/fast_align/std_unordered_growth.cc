// Prints where libstdc++'s std::unordered_map<unsigned, double> rehashes as it grows by single
// inserts: "SIZE BUCKETS" each time bucket_count() changes. The table GROWTH in
// crates/kernels/src/align/fast_align.rs is this program's output (g++ 12, Debian 12).
#include <cstdlib>
#include <iostream>
#include <unordered_map>

int main(int argc, char** argv) {
  std::unordered_map<unsigned, double> map;
  size_t buckets = map.bucket_count();
  const size_t limit = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000000;
  for (size_t size = 1; size <= limit; ++size) {
    map[static_cast<unsigned>(size)] = 0;
    if (map.bucket_count() != buckets) {
      buckets = map.bucket_count();
      std::cout << size << " " << buckets << "\n";
    }
  }
}
