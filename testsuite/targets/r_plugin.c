/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_plugin.c -- libplugin.so of report.py: loaded by libloader.so's
 * load_plugin(); its bss (1 MiB) makes it a module with every kind of
 * segment. */
static char plugin_space[1 << 20];

int plugin_entry(int x)
{
	plugin_space[x & 0xfffff] = (char)x;
	return plugin_space[(x + 1) & 0xfffff] + x;
}
