/* SPDX-License-Identifier: GPL-2.0-or-later */
// m_cxx.cc -- C++ target for the demangling test: prints the addresses of
// a namespaced function, a template instance and a static member, then
// "ready", and waits for a line on stdin.  It formats one line with an
// ostringstream so that libstdc++ itself is mapped (the comparison with
// eu-addr2line covers a real C++ library).
#include <cstdio>
#include <sstream>

namespace maptap_test {
struct widget {
	static int counter;
	int scale(int x) const { return x * factor; }
	int factor = 3;
};
int widget::counter = 5;

template <typename T> T twice(T v) { return v + v; }

int __attribute__((noinline)) compute(int x, double y)
{
	return x + (int)y + widget::counter;
}
} // namespace maptap_test

int main()
{
	char line[16];
	int (*tw)(int) = maptap_test::twice<int>;

	std::printf("sym cxx compute %p\n", (void *)&maptap_test::compute);
	std::printf("sym cxx twice %p\n", (void *)tw);
	std::printf("sym cxx counter %p\n", (void *)&maptap_test::widget::counter);
	std::ostringstream note;
	note << "note counter " << maptap_test::widget::counter;
	std::printf("%s\n", note.str().c_str());
	std::printf("ready\n");
	std::fflush(stdout);
	if (!std::fgets(line, sizeof(line), stdin))
		return 0;
	return tw(maptap_test::compute(1, 2.0)) == 0;
}
