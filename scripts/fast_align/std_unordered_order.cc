// Reads unsigned keys (whitespace-separated) from stdin, inserts them in order into a
// std::unordered_map<unsigned, double> with operator[] (as fast_align's TTable::Insert does),
// and prints the keys in the map's iteration order, one per line.
#include <iostream>
#include <unordered_map>

int main() {
  std::unordered_map<unsigned, double> map;
  unsigned key;
  while (std::cin >> key) map[key] = 0;
  for (const auto& entry : map) std::cout << entry.first << "\n";
}
