/* CMemory: giving freed heap memory back to the system (glibc's malloc_trim). */
#ifndef CMEMORY_H
#define CMEMORY_H
/* Returns the free pages of every malloc arena to the kernel; 1 when some memory was released.
   After a burst of large uploads glibc keeps the freed buffers in its arenas (a 31 MB buffer
   raises the mmap threshold, so the next ones come from the heap), and the server's resident
   size stays at the peak for good without this. */
int passconduit_return_free_memory(void);
#endif
