/* The text forms of addresses, written one way everywhere they are printed: dotted
 * decimal IPv4 and colon-separated lower-case MAC. libc only, at the bottom of sim/, so
 * every folder (report and scenario included) and every test program can use it. */
#ifndef SIM_ADDR_TEXT_H
#define SIM_ADDR_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define ADDR_TEXT_IPV4_LEN 16 /* "255.255.255.255" and its NUL */
#define ADDR_TEXT_MAC_LEN 18  /* "ff:ff:ff:ff:ff:ff" and its NUL */

/* "10.0.0.2" for 0x0A000002 (host order), cut to fit len like snprintf; returns out. */
char *addr_text_ipv4(uint32_t addr, char *out, size_t len);
/* "02:00:0a:00:00:02", cut to fit len like snprintf; returns out. */
char *addr_text_mac(const uint8_t mac[6], char *out, size_t len);

#endif
